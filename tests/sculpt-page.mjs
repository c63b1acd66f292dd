// Drive strata's sculpt editor page in headless Chromium with real
// pointer and key events (CDP Input.*, tests/cdp.mjs), for
// tests/sculpt-page.sh:
//
//   node sculpt-page.mjs WS_MODULE BROWSER_WS_URL PAGE_URL DIR OUT_PREFIX
//
// DIR is the editor's directory (its edit log DIR/edits.strata).  In a
// 640x480 tab, away from the panel (left 220 pixels):
//   1. a first stroke; then the picture (the canvas, A) and the log;
//   2. a second stroke (B): the pixels that differ from A, inside the
//      box of the stroke's points grown by the brush's radius on screen
//      and 16 pixels (up and down also by the world's relief on screen),
//      and outside it;
//   3. Ctrl-Z once per dab of the second stroke: the picture against A,
//      the log's bytes against step 1's;
//   4. Ctrl-Y and a click on "redo" (each dab of the stroke again): the
//      picture against B, the log against B's;
//   5. a click on "export" (glb, name "sculpt").
// Prints key=value lines (the shell judges them):
//   stroke.dabs  stroke.inside stroke.outside  (pixels differing)
//   undo.differ undo.log (1: the log's bytes as before the stroke)
//   redo.differ redo.log
//   exported=PATH  latency.n latency.median (ms, drawn)
//   errors=N failed=N
// and saves OUT_PREFIX-{a,b,undo}.png (canvas) and OUT_PREFIX-page.png
// (the whole page, panel included).  Exits 1 on a timeout.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { decode } from './png.mjs';
import { openTab } from './cdp.mjs';

const [wsModule, browserUrl, pageUrl, dir, prefix] = process.argv.slice(2);
const W = 640, H = 480, CORNER = [W - 4, H - 4], READY_MS = 180000;
const tab = await openTab(wsModule, browserUrl, W, H);
await tab.cmd('Page.navigate', { url: pageUrl });

async function ready(what) {
    if (!(await tab.until('window.strataReady === true', READY_MS))) {
        console.log(`timeout: the page was not ready (${what}) after ${READY_MS / 1000} s: ` +
                    (await tab.evaluate('document.getElementById("status").textContent')
                        .catch((e) => String(e))));
        console.log(`errors=${tab.errors} failed=${tab.failed}`);
        process.exit(1);
    }
}

// The canvas's picture: a PNG, saved as OUT_PREFIX-NAME.png, decoded.
async function picture(name) {
    // the pointer off the surface: no brush ring drawn
    await tab.mouse('mouseMoved', ...CORNER);
    await ready(name);
    const url = await tab.evaluate('document.querySelector("canvas").toDataURL("image/png")');
    const png = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
    writeFileSync(`${prefix}-${name}.png`, png);
    return decode(png);
}

const log = () => (existsSync(`${dir}/edits.strata`) ? readFileSync(`${dir}/edits.strata`) : Buffer.alloc(0));

// Press at the first point, move through the others, release; the most
// pixels the brush's radius took on screen.
async function stroke(points) {
    let radius = 0, relief = 0;
    await tab.mouse('mouseMoved', ...points[0]);
    await tab.mouse('mousePressed', ...points[0], true);
    for (const p of points.slice(1)) {
        await tab.mouse('mouseMoved', ...p, true);
        const [r, h] = await tab.evaluate('[window.strataRadiusPx, window.strataReliefPx]');
        radius = Math.max(radius, r);
        relief = Math.max(relief, h);
    }
    await tab.mouse('mouseReleased', ...points[points.length - 1]);
    return [radius, relief];
}

// Pixels of a and b that differ, inside box [x0, y0, x1, y1] and outside.
function differ(a, b, box = [0, 0, -1, -1]) {
    let inside = 0, outside = 0;
    for (let y = 0; y < a.height; y++)
        for (let x = 0; x < a.width; x++) {
            const i = (y * a.width + x) * a.channels;
            if (a.pixels[i] === b.pixels[i] && a.pixels[i + 1] === b.pixels[i + 1] &&
                a.pixels[i + 2] === b.pixels[i + 2])
                continue;
            if (x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3])
                inside++;
            else
                outside++;
        }
    return { inside, outside };
}

const line = (from, to, n) => Array.from({ length: n + 1 }, (_, i) =>
    [Math.round(from[0] + (to[0] - from[0]) * i / n), Math.round(from[1] + (to[1] - from[1]) * i / n)]);

await ready('loaded');
await stroke(line([400, 170], [440, 180], 4));
const a = await picture('a');
const logA = log();
const edits0 = await tab.evaluate('window.strataEdits');

const points = line([330, 300], [450, 320], 12);
const [r, h] = await stroke(points);
const b = await picture('b');
const logB = log();
const dabs = (await tab.evaluate('window.strataEdits')) - edits0;
// the box: the stroke's points grown by the brush's radius and a margin,
// and up and down by the world's relief too (the brush's disc is a
// column of terraces: raised ground hides what is behind it, higher up
// in the picture, and its walls reach down to the lowest terrace)
const grow = Math.ceil(r) + 16;
const box = [Math.min(...points.map((p) => p[0])) - grow,
             Math.min(...points.map((p) => p[1])) - grow - Math.ceil(h),
             Math.max(...points.map((p) => p[0])) + grow,
             Math.max(...points.map((p) => p[1])) + grow + Math.ceil(h)];
const s = differ(a, b, box);
console.log(`stroke.dabs=${dabs} stroke.radius_px=${r.toFixed(1)} stroke.relief_px=${h.toFixed(1)} ` +
            `stroke.box=${box.join(',')} stroke.inside=${s.inside} stroke.outside=${s.outside}`);

for (let i = 0; i < dabs; i++)
    await tab.ctrlKey('z');
const u = await picture('undo');
console.log(`undo.differ=${differ(a, u).outside} undo.log=${log().equals(logA) ? 1 : 0}`);

for (let i = 0; i < dabs - 1; i++)
    await tab.ctrlKey('y');
// the last one with the panel's button
const redoAt = await tab.evaluate('(() => { const r = document.getElementById("redo").getBoundingClientRect(); ' +
                                  'return [r.x + r.width / 2, r.y + r.height / 2]; })()');
await tab.mouse('mouseMoved', ...redoAt);
await tab.mouse('mousePressed', ...redoAt, true);
await tab.mouse('mouseReleased', ...redoAt);
const rd = await picture('redo');
console.log(`redo.differ=${differ(b, rd).outside} redo.log=${log().equals(logB) ? 1 : 0}`);

const saveAt = await tab.evaluate('(() => { const r = document.getElementById("save").getBoundingClientRect(); ' +
                                  'return [r.x + r.width / 2, r.y + r.height / 2]; })()');
await tab.mouse('mouseMoved', ...saveAt);
await tab.mouse('mousePressed', ...saveAt, true);
await tab.mouse('mouseReleased', ...saveAt);
if (!(await tab.until('window.strataExported !== null && window.strataReady', READY_MS)))
    console.log('timeout: no export');
console.log(`exported=${await tab.evaluate('window.strataExported')}`);

// the page as a person sees it, the brush over the stroke
await tab.mouse('mouseMoved', 420, 290);
await new Promise((ok) => setTimeout(ok, 500));
const { data } = await tab.cmd('Page.captureScreenshot', { format: 'png' });
writeFileSync(`${prefix}-page.png`, Buffer.from(data, 'base64'));

const lat = (await tab.evaluate('window.strataLatencies.map((l) => l.drawn)')).sort((x, y) => x - y);
console.log(`latency.n=${lat.length} latency.median=${lat.length ? lat[lat.length >> 1].toFixed(1) : -1}`);
console.log(`errors=${tab.errors} failed=${tab.failed}`);
await tab.close();
process.exit(0);
