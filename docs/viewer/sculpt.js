// strata's sculpt editor: the page of 'strata planet/terrain ... --sculpt'
// (apps/sculpt.c serves it at http://127.0.0.1:PORT/TOKEN/, every URL
// below relative to that).  The world's chunks come from api/chunks as one
// pack (apps/pack.h: positions, normals, indices and per-terrace ranges of
// each chunk), drawn with three.js, one mesh a chunk.  A left drag on the
// surface sculpts: every few steps of the pointer a dab (brush, centre,
// radius, strength) is POSTed to api/dab, which appends it to the world's
// edit log and answers the chunks it changed, re-sliced; only those
// meshes get new geometry.  Undo and redo (buttons, Ctrl-Z, Ctrl-Y or
// Ctrl-Shift-Z) answer the same way.  A left drag off the surface, or a
// right drag, orbits; the wheel zooms.  Export asks the server to run the
// command line again on the log (api/export: glb, a terrain's STL solid,
// or a world directory, in DIR/exports/).  The palette (the library's
// built-in ones from api/palettes, mixed as strata_palette_color does, and
// one colour a terrace changeable) colours the page only; exports take
// the command's --palette.  Terrace count, levels and the height curve
// are the command's options: the page cannot change them.
//
// Requests go one at a time, in order (the server is one loop); a dab
// made while one is under way waits for it.
//
// For scripts and tests the page sets:
//   window.strataReady    (a getter) true once the chunks are drawn and
//                         nothing is queued, under way or left to draw
//                         for STABLE_FRAMES frames
//   window.strataEdits, window.strataRedo   the log's dabs and redo steps
//   window.strataLatencies  per dab (or undo, redo) answered, {applied,
//                         drawn, shown}: ms from the pointer or key event
//                         to the answer's meshes in the scene, to the end
//                         of the frame that drew them, and to the start
//                         of the next frame (the drawn one shown)
//   window.strataRadiusPx   the brush's radius on screen, in pixels, at
//                         the last point under the pointer
//   window.strataReliefPx   the world's relief (its height range) on
//                         screen there, upwards
//   window.strataExported   the last export's path in DIR, or null
//   window.strataFailures   requests that failed (each also logged)
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

const STABLE_FRAMES = 3;
// A stroke dabs again once the pointer's point on the surface moved this
// fraction of the brush's radius.
const SPACING = 0.35;
// Raise, lower and noise take a strength in height units: the slider's
// value times this fraction of the world's relief.
const RELIEF_SHARE = 0.25;

window.strataEdits = 0;
window.strataRedo = 0;
window.strataLatencies = [];
window.strataRadiusPx = 0;
window.strataReliefPx = 0;
window.strataExported = null;
window.strataFailures = 0;

const $ = (id) => document.getElementById(id);
const status = $('status');

// No antialiasing: with software WebGL (SwiftShader, headless Chromium,
// machines without a GPU) it doubles the time from a dab to its frame
// (perf/sculpt-frame.sh).  preserveDrawingBuffer: tests read the canvas.
const renderer = new THREE.WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
renderer.setSize(window.innerWidth, window.innerHeight);
renderer.setClearColor(0x0b0e14);
document.body.insertBefore(renderer.domElement, document.body.firstChild);
const canvas = renderer.domElement;

const scene = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(45, window.innerWidth / window.innerHeight, 0.01, 100);
scene.add(camera);
// The one light, over the viewer's left shoulder, turning with the camera
// (as in viewer.js), and a little ambient light for the walls in shadow.
const light = new THREE.DirectionalLight(0xffffff, 2.6);
light.position.set(-0.4, 0.5, 1);
light.target.position.set(0, 0, -1);
camera.add(light, light.target);
scene.add(new THREE.AmbientLight(0xffffff, 0.5));

// ------------------------------------------------------------ materials

// One material for every mesh, coloured by vertex: a software renderer
// (SwiftShader) pays for every draw call, and one a chunk is what a
// level-9 planet can afford.  A vertex's colour is that of its code: 0
// the water, 1 + 2k + wall terrace k's roofs (wall 0) or walls (wall 1);
// colours[] holds each code's, linear RGB.
const material = new THREE.MeshLambertMaterial({ vertexColors: true });
const WATER = new THREE.Color(0x2f5f8f);
let colours = new Float32Array(3);
let nterraces = 0;
let palettes = {};
let stops = [];            // the palette's sRGB stops, [r, g, b] bytes
const overrides = new Map(); // terrace -> [r, g, b] chosen on a swatch

// Terrace k of n's colour as strata_palette_color mixes it (sRGB, walls
// times 0.6).
function terraceColor(k, n, wall) {
    let rgb = overrides.get(k);
    if (!rgb) {
        const t = n > 1 ? k / (n - 1) : 0.5;
        const x = t * (stops.length - 1);
        const i = Math.min(Math.floor(x), Math.max(stops.length - 2, 0));
        const f = stops.length > 1 ? x - i : 0;
        const a = stops[i], b = stops[Math.min(i + 1, stops.length - 1)];
        rgb = [0, 1, 2].map((c) => a[c] + (b[c] - a[c]) * f);
    }
    const s = wall ? 0.6 : 1;
    return new THREE.Color().setRGB(rgb[0] * s / 255, rgb[1] * s / 255, rgb[2] * s / 255,
                                    THREE.SRGBColorSpace);
}

const hex = (rgb) => '#' + rgb.map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');

// The vertex colours of geometry g from its codes.
function colour(g) {
    const code = g.userData.code, c = g.attributes.color.array;
    for (let i = 0; i < code.length; i++) {
        const k = 3 * code[i];
        c[3 * i] = colours[k];
        c[3 * i + 1] = colours[k + 1];
        c[3 * i + 2] = colours[k + 2];
    }
    g.attributes.color.needsUpdate = true;
}

// Colour n terraces (every mesh again) and show one swatch a terrace,
// lowest first.
function paint(n) {
    nterraces = Math.max(nterraces, n);
    colours = new Float32Array(3 * (1 + 2 * nterraces));
    WATER.toArray(colours, 0);
    const swatches = $('swatches');
    swatches.replaceChildren();
    for (let k = 0; k < nterraces; k++) {
        terraceColor(k, nterraces, 0).toArray(colours, 3 * (1 + 2 * k));
        terraceColor(k, nterraces, 1).toArray(colours, 3 * (2 + 2 * k));
        const input = document.createElement('input');
        input.type = 'color';
        input.title = `terrace ${k}`;
        input.value = '#' + terraceColor(k, nterraces, 0).getHexString(THREE.SRGBColorSpace);
        input.addEventListener('input', () => {
            const v = parseInt(input.value.slice(1), 16);
            overrides.set(k, [v >> 16, (v >> 8) & 255, v & 255]);
            paint(nterraces);
        });
        swatches.appendChild(input);
    }
    for (const m of meshes.values())
        colour(m.geometry);
    touch();
}

function choosePalette(name) {
    stops = palettes[name].map((h) => {
        const v = parseInt(h.slice(1), 16);
        return [v >> 16, (v >> 8) & 255, v & 255];
    });
    overrides.clear();
    paint(nterraces);
}

// ------------------------------------------------------------ chunks

// A pack (apps/pack.h) as [{id, geometry}], the geometries' arrays views
// of buf.
function unpack(buf) {
    const dv = new DataView(buf);
    const magic = new TextDecoder().decode(new Uint8Array(buf, 0, 8));
    if (magic !== 'STRATAPK' || dv.getUint32(8, true) !== 1)
        throw new Error('not a strata pack of version 1');
    const n = dv.getUint32(12, true), out = [];
    let off = 16, most = 0;
    for (let c = 0; c < n; c++) {
        const id = dv.getUint32(off, true) + dv.getUint32(off + 4, true) * 2 ** 32;
        const nv = dv.getUint32(off + 8, true), ni = dv.getUint32(off + 12, true);
        const nr = dv.getUint32(off + 16, true), normals = dv.getUint32(off + 20, true) & 1;
        off += 24;
        const g = new THREE.BufferGeometry();
        g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(buf, off, 3 * nv), 3));
        off += 12 * nv;
        if (normals) {
            g.setAttribute('normal', new THREE.BufferAttribute(new Float32Array(buf, off, 3 * nv), 3));
            off += 12 * nv;
        }
        const index = new Uint32Array(buf, off, ni);
        g.setIndex(new THREE.BufferAttribute(index, 1));
        off += 4 * ni;
        // each vertex's code from the ranges of the triangles using it
        const code = new Uint16Array(nv);
        for (let r = 0; r < nr; r++, off += 16) {
            const first = dv.getUint32(off, true), count = dv.getUint32(off + 4, true);
            const terrace = dv.getInt32(off + 8, true), wall = dv.getUint32(off + 12, true);
            const c = terrace < 0 ? 0 : 1 + 2 * terrace + (wall ? 1 : 0);
            for (let i = first; i < first + count; i++)
                code[index[i]] = c;
            most = Math.max(most, terrace + 1);
        }
        g.userData.code = code;
        g.setAttribute('color', new THREE.BufferAttribute(new Float32Array(3 * nv), 3));
        if (!normals)
            g.computeVertexNormals();
        g.computeBoundingSphere();
        g.computeBoundingBox();
        out.push({ id, geometry: g });
    }
    if (off !== buf.byteLength)
        throw new Error(`pack: ${buf.byteLength - off} bytes left over`);
    if (most > nterraces)
        paint(most);
    for (const { geometry } of out)
        colour(geometry);
    return out;
}

const meshes = new Map(); // chunk id -> its mesh (kept: only its geometry changes)

// New geometry for the chunks of a pack: a mesh's place in the scene (the
// order things are drawn in) stays, so the same geometry draws the same
// pixels after an undo.
function apply(list) {
    for (const { id, geometry } of list) {
        let m = meshes.get(id);
        if (!m) {
            m = new THREE.Mesh(geometry, material);
            m.matrixAutoUpdate = false;
            meshes.set(id, m);
            scene.add(m);
        } else {
            m.geometry.dispose();
            m.geometry = geometry;
        }
    }
    touch();
}

// ------------------------------------------------------------ requests

let kind = 'planet';
let size = 1;     // the world's bounding radius
let relief = 1;   // its height range
const centre = new THREE.Vector3();
const queue = [];  // requests waiting: {path, body, t0}
let under = null;  // the request under way
let drawnAt = [];  // {t0, applied} of answers applied, not yet drawn
let shownAt = [];  // strataLatencies entries drawn, not yet shown

function fail(what, text) {
    window.strataFailures++;
    status.textContent = `${what}: ${text}`;
    console.error(`strata sculpt: ${what}: ${text}`);
}

function request(path, body, t0) {
    queue.push({ path, body, t0 });
    pump();
    buttons();
}

async function pump() {
    if (under || queue.length === 0)
        return;
    under = queue.shift();
    stable = 0;
    try {
        const r = await fetch(under.path, { method: 'POST', body: under.body });
        if (!r.ok)
            throw new Error((await r.text()).trim());
        const data = await r.arrayBuffer();
        if (under.path === 'api/export') {
            window.strataExported = JSON.parse(new TextDecoder().decode(data)).path;
            status.textContent = `exported to ${window.strataExported}`;
        } else {
            apply(unpack(data));
            drawnAt.push({ t0: under.t0, applied: performance.now() - under.t0 });
        }
    } catch (e) {
        fail(under.path, e.message);
    }
    under = null;
    pump();
    buttons();
}

// A dab at point p (the surface under the pointer); t0 the event's time.
function dab(p, t0) {
    const brush = document.querySelector('#brushes .on').dataset.brush;
    const s = Number($('strength').value);
    const strength = brush === 'smooth' || brush === 'terrace' ? s : s * RELIEF_SHARE * relief;
    const body = JSON.stringify({ brush, center: [p.x, p.y, p.z], radius: radiusWorld(),
                                  strength: Number(strength.toPrecision(6)) });
    window.strataEdits++;
    window.strataRedo = 0;
    request('api/dab', body, t0);
}

function undo(t0) {
    if (window.strataEdits === 0)
        return;
    window.strataEdits--;
    window.strataRedo++;
    request('api/undo', '{}', t0);
}

function redo(t0) {
    if (window.strataRedo === 0)
        return;
    window.strataRedo--;
    window.strataEdits++;
    request('api/redo', '{}', t0);
}

function buttons() {
    $('undo').disabled = window.strataEdits === 0;
    $('redo').disabled = window.strataRedo === 0;
    const busy = under || queue.length ? ', working...' : '';
    if (!status.textContent.startsWith('exported') || busy)
        status.textContent = `${meshes.size} chunks, ${window.strataEdits} dabs${busy}`;
}

// ------------------------------------------------------------ the brush

const radiusWorld = () => Number($('radius').value) * size;

// The brush under the pointer: a ring of its radius on the surface.
const ring = new THREE.LineLoop(
    new THREE.BufferGeometry().setFromPoints(
        Array.from({ length: 64 }, (_, i) => new THREE.Vector3(
            Math.cos(i * Math.PI / 32), Math.sin(i * Math.PI / 32), 0))),
    new THREE.LineBasicMaterial({ color: 0xffffff, depthTest: false, transparent: true,
                                  opacity: 0.8 }));
ring.visible = false;
ring.renderOrder = 1;
scene.add(ring);

const raycaster = new THREE.Raycaster();
const pointer = new THREE.Vector2();

// The first point of the surface under a pointer event, or null.
function pick(ev) {
    const r = canvas.getBoundingClientRect();
    pointer.set((ev.clientX - r.left) / r.width * 2 - 1, -(ev.clientY - r.top) / r.height * 2 + 1);
    raycaster.setFromCamera(pointer, camera);
    const hits = raycaster.intersectObjects([...meshes.values()], false);
    return hits.length ? hits[0] : null;
}

function showRing(hit) {
    const was = ring.visible;
    ring.visible = !!hit;
    if (hit) {
        const n = hit.face.normal.clone().normalize();
        ring.position.copy(hit.point).addScaledVector(n, 0.002 * size);
        ring.lookAt(ring.position.clone().add(n));
        ring.scale.setScalar(radiusWorld());
        ring.updateMatrix();
        // the radius on screen: the point and one a radius away projected
        const side = new THREE.Vector3(1, 0, 0).applyQuaternion(ring.quaternion);
        const a = hit.point.clone().project(camera);
        const b = hit.point.clone().addScaledVector(side, radiusWorld()).project(camera);
        const px = (p) => Math.hypot((a.x - p.x) * canvas.clientWidth / 2,
                                     (a.y - p.y) * canvas.clientHeight / 2);
        window.strataRadiusPx = px(b);
        // and the world's relief, upwards from the point
        const up = kind === 'planet' ? hit.point.clone().normalize() : new THREE.Vector3(0, 1, 0);
        window.strataReliefPx = px(hit.point.clone().addScaledVector(up, relief).project(camera));
    }
    if (hit || was)
        touch();
}

let stroke = null; // the point of the last dab of the stroke under way

// Registered before OrbitControls' own listener: a press on the surface
// starts a stroke and keeps the controls from orbiting until released.
canvas.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0 || meshes.size === 0)
        return;
    const hit = pick(ev);
    if (!hit)
        return;
    controls.enabled = false;
    canvas.setPointerCapture(ev.pointerId);
    stroke = hit.point.clone();
    dab(hit.point, ev.timeStamp);
});
canvas.addEventListener('pointermove', (ev) => {
    const hit = pick(ev);
    showRing(hit);
    if (stroke && hit && hit.point.distanceTo(stroke) >= SPACING * radiusWorld()) {
        stroke = hit.point.clone();
        dab(hit.point, ev.timeStamp);
    }
});
const end = (ev) => {
    if (!stroke)
        return;
    stroke = null;
    controls.enabled = true;
    if (canvas.hasPointerCapture(ev.pointerId))
        canvas.releasePointerCapture(ev.pointerId);
};
canvas.addEventListener('pointerup', end);
canvas.addEventListener('pointercancel', end);
canvas.addEventListener('pointerleave', () => showRing(null));

const controls = new OrbitControls(camera, canvas);
controls.enableDamping = false;
controls.addEventListener('change', () => touch());

// ------------------------------------------------------------ the panel

function chooseBrush(name) {
    for (const b of document.querySelectorAll('#brushes button'))
        b.classList.toggle('on', b.dataset.brush === name);
}
for (const b of document.querySelectorAll('#brushes button'))
    b.addEventListener('click', () => chooseBrush(b.dataset.brush));
chooseBrush('raise');
$('undo').addEventListener('click', (ev) => undo(ev.timeStamp));
$('redo').addEventListener('click', (ev) => redo(ev.timeStamp));
$('radius').addEventListener('input', () => { ring.visible = false; touch(); });
$('palette').addEventListener('change', () => choosePalette($('palette').value));
$('save').addEventListener('click', () => {
    const name = $('name').value.trim();
    if (!/^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/.test(name))
        return fail('export', 'the name: 1 to 64 letters, digits, _ or - (not first)');
    status.textContent = `exporting ${name}...`;
    window.strataExported = null;
    request('api/export', JSON.stringify({ format: $('format').value, name }), 0);
});
window.addEventListener('keydown', (ev) => {
    if (ev.target instanceof HTMLInputElement && ev.target.type === 'text')
        return;
    const key = ev.key.toLowerCase();
    if ((ev.ctrlKey || ev.metaKey) && key === 'z') {
        ev.shiftKey ? redo(ev.timeStamp) : undo(ev.timeStamp);
    } else if ((ev.ctrlKey || ev.metaKey) && key === 'y') {
        redo(ev.timeStamp);
    } else if (!ev.ctrlKey && !ev.metaKey && key >= '1' && key <= '5') {
        chooseBrush(document.querySelectorAll('#brushes button')[Number(key) - 1].dataset.brush);
    } else {
        return;
    }
    ev.preventDefault();
});

// ------------------------------------------------------------ drawing

let dirty = true;
let loaded = false;
let stable = 0;
function touch() {
    dirty = true;
    stable = 0;
}
Object.defineProperty(window, 'strataReady', {
    get: () => loaded && !under && queue.length === 0 && !dirty && stable >= STABLE_FRAMES,
});

window.addEventListener('resize', () => {
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(window.innerWidth, window.innerHeight);
    touch();
});

// Drawing on demand: when the view, a mesh or the brush's ring changed.
function frame() {
    requestAnimationFrame(frame);
    for (const l of shownAt)
        l.shown = performance.now() - l.t0;
    shownAt = [];
    if (!dirty) {
        stable++;
        return;
    }
    // near and far planes that follow the zoom: depth precision close up
    const d = camera.position.distanceTo(centre);
    camera.near = Math.max((d - size) * 0.2, size * 1e-5);
    camera.far = d + 2 * size;
    camera.updateProjectionMatrix();
    renderer.render(scene, camera);
    dirty = false;
    const drawn = performance.now();
    for (const { t0, applied } of drawnAt) {
        const l = { t0, applied, drawn: drawn - t0, shown: null };
        window.strataLatencies.push(l);
        shownAt.push(l);
    }
    drawnAt = [];
}

// The world's centre, size and relief from the chunks' boxes, and the
// camera placed to see it all.
function frameWorld() {
    const box = new THREE.Box3();
    for (const m of meshes.values())
        box.union(m.geometry.boundingBox);
    const sphere = box.getBoundingSphere(new THREE.Sphere());
    size = sphere.radius > 0 ? sphere.radius : 1;
    if (kind === 'planet') {
        // the relief: the spread of the vertices' distances from the centre
        let lo = Infinity, hi = 0;
        for (const m of meshes.values()) {
            const p = m.geometry.attributes.position.array;
            for (let i = 0; i < p.length; i += 3) {
                const r = Math.hypot(p[i], p[i + 1], p[i + 2]);
                lo = Math.min(lo, r);
                hi = Math.max(hi, r);
            }
        }
        relief = hi > lo ? hi - lo : 0.1;
        size = hi > 0 ? hi : 1; // the box's sphere is sqrt(3) times too big
        centre.set(0, 0, 0);
        camera.position.set(0.35, 0.45, 1).normalize().multiplyScalar(2.8 * size);
    } else {
        relief = box.max.y > box.min.y ? box.max.y - box.min.y : 0.1 * size;
        centre.copy(sphere.center);
        camera.position.copy(centre).add(new THREE.Vector3(0, 1.1, 1.3).multiplyScalar(size));
    }
    controls.target.copy(centre);
    controls.minDistance = size * 1e-3;
    controls.maxDistance = size * 50;
    controls.update();
}

async function start() {
    try {
        const [state, pal, pack] = await Promise.all([
            fetch('api/state').then((r) => r.ok ? r.json() : Promise.reject(new Error(r.statusText))),
            fetch('api/palettes').then((r) => r.ok ? r.json() : Promise.reject(new Error(r.statusText))),
            fetch('api/chunks').then((r) => r.ok ? r.arrayBuffer() : Promise.reject(new Error(r.statusText))),
        ]);
        kind = state.kind;
        window.strataEdits = state.edits;
        window.strataRedo = state.redo;
        palettes = pal;
        for (const name of Object.keys(palettes))
            $('palette').add(new Option(name, name));
        choosePalette(Object.keys(palettes)[0]);
        if (kind !== 'terrain') // STL solids are made of terrains
            [...$('format').options].find((o) => o.text === 'stl').remove();
        apply(unpack(pack));
        frameWorld();
        loaded = true;
        buttons();
    } catch (e) {
        fail('loading the world', e.message);
    }
}
start();
requestAnimationFrame(frame);
