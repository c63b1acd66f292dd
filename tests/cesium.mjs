// A world in CesiumJS (tests/cesium.sh): serves CesiumJS's Build/Cesium,
// a world directory and a page over HTTP on 127.0.0.1, and drives
// headless Chromium through the DevTools protocol (the npm package "ws").
//
//   node cesium.mjs WS_MODULE BROWSER_WS_URL CESIUM_BUILD WORLD_DIR OUT_PREFIX \
//        LON,LAT,H,RANGE [WxH]
//
// The page: a CesiumWidget with nothing from the network (no Ion token,
// no imagery: the base layer off, a plain WGS84 globe of one colour, no
// sky), the world's tileset.json loaded with Cesium3DTileset.fromUrl.
// Four pictures, each once the globe's and the tileset's tiles are all
// loaded, the camera looking at (LON, LAT, H) from RANGE metres, 45
// degrees down, north up:
//   OUT_PREFIX-near.png      the tileset shown, the camera at the place
//   OUT_PREFIX-near-bare.png the tileset hidden, the same camera
//   OUT_PREFIX-far.png       shown, the camera at the antipode
//   OUT_PREFIX-far-bare.png  hidden, at the antipode
// Prints key=value: tiles=N (tiles loaded), failed=N (tileFailed events),
// near.selected / far.selected (tiles drawn), errors=N (console errors
// and uncaught exceptions, each also printed).  Exits 1 on a timeout.
import { createServer } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { openTab } from './cdp.mjs';

const [wsModule, browserUrl, cesiumDir, worldDir, prefix, where, size = '480x360'] =
    process.argv.slice(2);
const [lon, lat, height, range] = where.split(',').map(Number);
const [width, pxHeight] = size.split('x').map(Number);
const READY_MS = 240000;

const PAGE = `<!doctype html><html><head><meta charset="utf-8">
<link rel="icon" href="data:,">
<style>html,body,#c{margin:0;width:100%;height:100%;overflow:hidden}</style>
<link rel="stylesheet" href="/cesium/Widgets/widgets.css">
<script src="/cesium/Cesium.js"></script></head><body><div id="c"></div><script>
window.CESIUM_BASE_URL = '/cesium/';
const w = new Cesium.CesiumWidget('c', {
    baseLayer: false, skyBox: false, skyAtmosphere: false, requestRenderMode: false,
    globe: new Cesium.Globe(Cesium.Ellipsoid.WGS84), creditContainer: document.createElement('div'),
    msaaSamples: 1,
});
w.scene.globe.baseColor = Cesium.Color.fromBytes(20, 40, 160);
w.scene.globe.showGroundAtmosphere = false;
w.scene.fog.enabled = false;
w.scene.moon = undefined;
w.scene.sun = undefined;
w.clock.currentTime = Cesium.JulianDate.fromIso8601('2024-06-21T11:00:00Z');
w.clock.shouldAnimate = false;
window.strataFailed = 0;
window.strataLoaded = 0;
Cesium.Cesium3DTileset.fromUrl('/world/tileset.json').then((t) => {
    t.tileFailed.addEventListener((e) => { window.strataFailed++; console.error('tile failed: ' + e.url + ' ' + e.message); });
    t.tileLoad.addEventListener(() => window.strataLoaded++);
    w.scene.primitives.add(t);
    window.strataTileset = t;
}).catch((e) => console.error('tileset: ' + e));
window.strataLook = (lon, lat, h, range) => {
    w.camera.lookAt(Cesium.Cartesian3.fromDegrees(lon, lat, h),
                    new Cesium.HeadingPitchRange(0, -Math.PI / 4, range));
};
// ready: the tileset and the globe loaded, nothing pending, for 10 frames
window.strataStable = 0;
w.scene.postRender.addEventListener(() => {
    const t = window.strataTileset;
    const done = t && t.tilesLoaded && w.scene.globe.tilesLoaded;
    window.strataStable = done ? window.strataStable + 1 : 0;
});
window.strataSelected = () => window.strataTileset ? window.strataTileset.statistics.selected : -1;
</script></body></html>`;

const TYPES = { '.js': 'text/javascript', '.json': 'application/json', '.glb': 'model/gltf-binary',
                '.css': 'text/css', '.wasm': 'application/wasm', '.png': 'image/png',
                '.svg': 'image/svg+xml', '.html': 'text/html' };
const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let file = null;
    if (path === '/')
        return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    for (const [p, root] of [['/cesium/', cesiumDir], ['/world/', worldDir]]) {
        if (path.startsWith(p)) {
            const rel = normalize(path.slice(p.length));
            if (!rel.startsWith('..'))
                file = join(root, rel);
        }
    }
    try {
        if (!file)
            throw new Error('outside');
        const body = await readFile(file);
        res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' }).end(body);
    } catch {
        res.writeHead(404).end();
    }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const pageUrl = `http://127.0.0.1:${server.address().port}/`;

const tab = await openTab(wsModule, browserUrl, width, pxHeight);
await tab.cmd('Page.navigate', { url: pageUrl });
const evaluate = tab.evaluate;
async function until(expr, what) {
    const t0 = Date.now();
    while (Date.now() - t0 < READY_MS) {
        if (await evaluate(expr).catch(() => false))
            return;
        await new Promise((ok) => setTimeout(ok, 200));
    }
    console.log(`timeout: ${what} after ${READY_MS / 1000} s`);
    console.log(`errors=${tab.errors}`);
    process.exit(1);
}
async function shot(name, lo, la, show) {
    await evaluate(`strataTileset.show = ${show}; strataStable = 0; ` +
                   `strataLook(${lo}, ${la}, ${height}, ${range})`);
    await until('window.strataStable >= 10', name);
    const { data } = await tab.cmd('Page.captureScreenshot', { format: 'png' });
    await writeFile(`${prefix}-${name}.png`, Buffer.from(data, 'base64'));
}

await until('window.strataTileset !== undefined', 'the tileset');
const antiLon = lon > 0 ? lon - 180 : lon + 180;
await shot('near', lon, lat, true);
const nearSelected = await evaluate('strataSelected()');
await shot('near-bare', lon, lat, false);
await shot('far', antiLon, -lat, true);
const farSelected = await evaluate('strataSelected()');
await shot('far-bare', antiLon, -lat, false);
console.log(`tiles=${await evaluate('strataLoaded')} failed=${await evaluate('strataFailed')} ` +
            `near.selected=${nearSelected} far.selected=${farSelected}`);
console.log(`errors=${tab.errors}`);
await tab.close();
server.close();
process.exit(0);
