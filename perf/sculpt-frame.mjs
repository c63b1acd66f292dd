// Dab -> frame latency of the sculpt editor's page in headless Chromium
// (driven by perf/sculpt-frame.sh):
//
//   node sculpt-frame.mjs WS_MODULE BROWSER_WS_URL PAGE_URL DABS [WxH]
//
// Opens the page (default 960x640), waits until it is drawn, then DABS
// times: a click (CDP mouse press and release) at a point of a ring
// around the picture's centre, and a wait until the page is ready again
// (the dab answered, drawn, nothing queued), so that each dab is timed
// alone.  The page measures each from the pointer event's timeStamp
// (window.strataLatencies in docs/viewer/sculpt.js): to its answer's
// meshes in the scene (applied), to the end of the frame that drew them
// (drawn), to the start of the next frame (shown).  Prints one line
//   load_ms=... chunks=N dabs=N applied_median=... drawn_median=...
//   drawn_p99=... shown_median=... shown_p99=... (ms)
// and exits 1 on a timeout or a console error.
import { openTab } from '../tests/cdp.mjs';

const [wsModule, browserUrl, pageUrl, dabsArg, size = '960x640'] = process.argv.slice(2);
const [W, H] = size.split('x').map(Number);
const DABS = Number(dabsArg), READY_MS = Number(process.env.READY_MS || 600000);
const tab = await openTab(wsModule, browserUrl, W, H);
const t0 = Date.now();
await tab.cmd('Page.navigate', { url: pageUrl });
if (!(await tab.until('window.strataReady === true', READY_MS))) {
    console.log('timeout: the page did not load');
    process.exit(1);
}
const loadMs = Date.now() - t0;

// points on a ring of a fifth of the height around the centre, right of
// the panel
for (let i = 0; i < DABS; i++) {
    const a = i * 2.39996; // the golden angle: points that do not repeat
    const x = Math.round(W * 0.6 + Math.cos(a) * H * 0.2);
    const y = Math.round(H * 0.5 + Math.sin(a) * H * 0.2);
    await tab.mouse('mouseMoved', x, y);
    await tab.mouse('mousePressed', x, y, true);
    await tab.mouse('mouseReleased', x, y);
    if (!(await tab.until(`window.strataReady === true && window.strataLatencies.length === ${i + 1} ` +
                          `&& window.strataLatencies[${i}].shown !== null`, READY_MS))) {
        console.log(`timeout: dab ${i} at ${x},${y} was not drawn: ` + await tab.evaluate(
            'JSON.stringify([window.strataReady, window.strataLatencies.length, ' +
            'document.getElementById("status").textContent])'));
        process.exit(1);
    }
}
const lat = await tab.evaluate('window.strataLatencies');
const chunks = await tab.evaluate('document.getElementById("status").textContent');
const q = (key, p) => {
    const v = lat.map((l) => l[key]).sort((a, b) => a - b);
    return v[Math.min(v.length - 1, Math.floor(p * v.length))].toFixed(1);
};
console.log(`load_ms=${loadMs} chunks=${parseInt(chunks, 10)} dabs=${lat.length} ` +
            `applied_median=${q('applied', 0.5)} drawn_median=${q('drawn', 0.5)} ` +
            `drawn_p99=${q('drawn', 0.99)} shown_median=${q('shown', 0.5)} ` +
            `shown_p99=${q('shown', 0.99)} errors=${tab.errors} failed=${tab.failed}`);
await tab.close();
process.exit(tab.errors || tab.failed ? 1 : 0);
