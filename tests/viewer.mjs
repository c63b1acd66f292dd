// Drive headless Chromium through the DevTools protocol (CDP, over the
// npm package "ws") to look at a world in strata's viewer.
//
//   node viewer.mjs WS_MODULE BROWSER_WS_URL PAGE_URL OUT_PREFIX ZOOMS [WxH]
//
// Opens PAGE_URL in a new tab of WxH pixels (default 640x480), waits for
// window.strataReady and saves OUT_PREFIX-view0.png; then for each factor
// of ZOOMS (a comma-separated list) calls strataZoom(factor), waits again
// and saves OUT_PREFIX-view1.png, ...  Prints key=value lines:
//   view0.tiles view0.visible view0.depth view0.share   (share: the
//   view1.tiles ...                                      fraction of
//                                                        pixels not
//                                                        background)
//   frame=X,Y,Z,R  the centre and radius the camera orbits (viewer.js)
//   errors=N   console errors and uncaught exceptions (each also printed)
// Exits 1 on a timeout, 0 otherwise (the caller judges the figures).
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { decode, isBackground } from './png.mjs';

const [wsModule, browserUrl, pageUrl, prefix, zoomList, size = '640x480'] = process.argv.slice(2);
const [width, height] = size.split('x').map(Number);
const { default: WebSocket } = await import(pathToFileURL(wsModule).href);
const READY_MS = 120000;

const ws = new WebSocket(browserUrl, { perMessageDeflate: false });
await new Promise((ok, fail) => { ws.once('open', ok); ws.once('error', fail); });
let nextId = 1;
const waiting = new Map();
const listeners = [];
ws.on('message', (data) => {
    const m = JSON.parse(data);
    if (m.id && waiting.has(m.id)) {
        const { ok, fail } = waiting.get(m.id);
        waiting.delete(m.id);
        m.error ? fail(new Error(`${m.error.message} (${m.error.code})`)) : ok(m.result);
    } else if (m.method) {
        for (const l of listeners) l(m);
    }
});
function send(method, params = {}, sessionId) {
    const id = nextId++;
    ws.send(JSON.stringify({ id, method, params, sessionId }));
    return new Promise((ok, fail) => waiting.set(id, { ok, fail }));
}

let errors = 0;
listeners.push((m) => {
    let text = null;
    if (m.method === 'Runtime.consoleAPICalled' && m.params.type === 'error')
        text = m.params.args.map((a) => a.value ?? a.description ?? a.type).join(' ');
    else if (m.method === 'Runtime.exceptionThrown')
        text = m.params.exceptionDetails.exception?.description ?? m.params.exceptionDetails.text;
    else if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error')
        text = `${m.params.entry.text} ${m.params.entry.url ?? ''}`;
    if (text !== null && ++errors <= 10)
        console.log(`console error: ${text}`);
});

const { targetId } = await send('Target.createTarget', { url: 'about:blank' });
const { sessionId } = await send('Target.attachToTarget', { targetId, flatten: true });
const cmd = (method, params) => send(method, params, sessionId);
await cmd('Runtime.enable');
await cmd('Log.enable');
await cmd('Page.enable');
await cmd('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
await cmd('Page.navigate', { url: pageUrl });

async function evaluate(expr) {
    const r = await cmd('Runtime.evaluate', { expression: expr, returnByValue: true });
    if (r.exceptionDetails)
        throw new Error(`${expr}: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value;
}
async function ready(what) {
    const t0 = Date.now();
    while (Date.now() - t0 < READY_MS) {
        if (await evaluate('window.strataReady === true').catch(() => false))
            return;
        await new Promise((ok) => setTimeout(ok, 200));
    }
    console.log(`timeout: the page was not ready (${what}) after ${READY_MS / 1000} s: ` +
                JSON.stringify(await evaluate('[window.strataTiles, window.strataVisible, window.strataDepth]').catch((e) => String(e))));
    process.exit(1);
}

// The fraction of pixels of a PNG further than 8 in any channel from the
// background.
function share(png) {
    const img = decode(png), n = img.width * img.height;
    let lit = 0;
    for (let i = 0; i < n; i++)
        lit += !isBackground(img, i);
    return lit / n;
}

async function shot(name) {
    // the page's status line is not part of the picture compared
    await evaluate("document.getElementById('info') && (document.getElementById('info').style.visibility = 'hidden')");
    const { data } = await cmd('Page.captureScreenshot', { format: 'png' });
    const png = Buffer.from(data, 'base64');
    writeFileSync(`${prefix}-${name}.png`, png);
    const v = await evaluate('[window.strataTiles, window.strataVisible, window.strataDepth, window.strataShallowest]');
    console.log(`${name}.tiles=${v[0]} ${name}.visible=${v[1]} ${name}.depth=${v[2]} ` +
                `${name}.shallowest=${v[3]} ` +
                `${name}.share=${share(png).toFixed(4)}`);
}

await ready('view0');
await shot('view0');
const zooms = zoomList.split(',').map(Number);
for (let i = 0; i < zooms.length; i++) {
    await evaluate(`window.strataZoom(${zooms[i]})`);
    await ready(`view${i + 1}`);
    await shot(`view${i + 1}`);
}
console.log(`frame=${await evaluate('window.strataFrame')}`);
console.log(`errors=${errors}`);
await send('Target.closeTarget', { targetId });
ws.close();
process.exit(0);
