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
import { openTab } from './cdp.mjs';
import { decode, isBackground } from './png.mjs';

const [wsModule, browserUrl, pageUrl, prefix, zoomList, size = '640x480'] = process.argv.slice(2);
const [width, height] = size.split('x').map(Number);
const READY_MS = 120000;
const tab = await openTab(wsModule, browserUrl, width, height);
await tab.cmd('Page.navigate', { url: pageUrl });
const evaluate = tab.evaluate;
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
    const { data } = await tab.cmd('Page.captureScreenshot', { format: 'png' });
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
console.log(`errors=${tab.errors}`);
await tab.close();
process.exit(0);
