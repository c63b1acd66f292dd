// strata's world viewer: streams a 3D Tiles tileset (a world directory's
// tileset.json) with three.js and 3d-tiles-renderer, orbiting the centre
// of its bounding volume (a planet's centre), lit by one light that moves
// with the camera.  GLB tiles compressed with EXT_meshopt_compression
// (strata --compress) are decoded by three's MeshoptDecoder.
//
// URL parameters:
//   tileset=URL   the tileset (default: tileset.json next to the page)
//   distance=D    the camera's distance from the centre, in radii of the
//                 root tile's bounding sphere (default 2)
//   frame=X,Y,Z,R that centre and radius instead of the bounding sphere's
//                 (three.js's frame: y up), to compare two tilesets from
//                 the same camera
//
// For scripts and tests the page sets:
//   window.strataReady    true once the root tileset is loaded, tiles are
//                         visible and nothing is queued, downloading or
//                         parsing for STABLE_FRAMES frames in a row
//   window.strataTiles    the number of tile models loaded (in memory)
//   window.strataVisible  the number of tiles drawn
//   window.strataDepth    the deepest level of the tile tree drawn (0: root)
//   window.strataShallowest  the shallowest level drawn
//   window.strataZoom(f)  moves the camera to f times its distance from the
//                         centre (f < 1 zooms in) and clears strataReady
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';
import { MeshoptDecoder } from 'three/addons/libs/meshopt_decoder.module.js';
import { TilesRenderer } from '3d-tiles-renderer';

const STABLE_FRAMES = 10;
const params = new URLSearchParams(location.search);
// absolute, so that tile URLs resolve against the tileset's directory
const tilesetUrl = new URL(params.get('tileset') || 'tileset.json', window.location.href).href;
let distance = Number(params.get('distance') || 2);
if (!(distance > 0))
    distance = 2;

window.strataReady = false;
window.strataTiles = 0;
window.strataVisible = 0;
window.strataDepth = -1;
window.strataShallowest = -1;
window.strataFrame = '';  // the centre and radius orbited, as frame= takes them
const frameParam = (params.get('frame') || '').split(',').map(Number);
const fixedFrame = frameParam.length === 4 && frameParam.every(Number.isFinite) && frameParam[3] > 0;

// A logarithmic depth buffer: a --lod tile's skirt lies right behind the
// neighbour's surface along every seam, and the near plane follows the
// zoom down to 1e-5 radii; a linear 24-bit depth buffer then cannot tell
// them apart and the skirt shows as a dashed line (perf/skirts.sh).
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true, logarithmicDepthBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio);
renderer.setSize(window.innerWidth, window.innerHeight);
renderer.setClearColor(0x0b0e14);
document.body.appendChild(renderer.domElement);

const scene = new THREE.Scene();
const camera = new THREE.PerspectiveCamera(45, window.innerWidth / window.innerHeight, 0.01, 100);
scene.add(camera);

// The one light: over the viewer's left shoulder, turning with the camera.
const light = new THREE.DirectionalLight(0xffffff, 3.2);
light.position.set(-0.4, 0.5, 1);
light.target.position.set(0, 0, -1);
camera.add(light, light.target);

const tiles = new TilesRenderer(tilesetUrl);
const gltf = new GLTFLoader(tiles.manager);
gltf.setMeshoptDecoder(MeshoptDecoder);
tiles.manager.addHandler(/\.(gltf|glb)$/i, gltf);
tiles.setCamera(camera);
tiles.setResolutionFromRenderer(camera, renderer);
tiles.group.rotation.x = -Math.PI / 2; // the tileset's z up is three's y up
scene.add(tiles.group);

const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = false;
const centre = new THREE.Vector3();
let radius = 1;
let framed = false;

// Camera at `distance` radii from the centre along its current direction
// (the first time: from the front, a little above).
function place() {
    const dir = framed ? camera.position.clone().sub(centre).normalize()
                       : new THREE.Vector3(0.35, 0.45, 1).normalize();
    camera.position.copy(centre).addScaledVector(dir, distance * radius);
    controls.target.copy(centre);
    controls.update();
}

tiles.addEventListener('load-root-tileset', () => {
    // a world placed on the Earth (strata --place): shown in its own frame,
    // the root's transform undone (three.js composes the matrices in
    // double precision, so the tiles do not jitter at ECEF's magnitudes)
    if (tiles.root && Array.isArray(tiles.root.transform)) {
        const earth = new THREE.Matrix4().fromArray(tiles.root.transform);
        tiles.group.matrixAutoUpdate = false;
        tiles.group.matrix.makeRotationX(-Math.PI / 2).multiply(earth.invert());
    }
    const sphere = new THREE.Sphere();
    tiles.group.updateMatrixWorld(true);
    if (tiles.getBoundingSphere(sphere)) {
        sphere.applyMatrix4(tiles.group.matrixWorld);
        centre.copy(sphere.center);
        radius = sphere.radius > 0 ? sphere.radius : 1;
    }
    if (fixedFrame) {
        centre.set(frameParam[0], frameParam[1], frameParam[2]);
        radius = frameParam[3];
    }
    window.strataFrame = [centre.x, centre.y, centre.z, radius].join(',');
    place();
    framed = true;
    dirty = true;
    controls.minDistance = radius * 1e-3;
    controls.maxDistance = radius * 50;
});
tiles.addEventListener('load-model', () => window.strataTiles++);
tiles.addEventListener('dispose-model', () => window.strataTiles--);

window.strataZoom = (f) => {
    if (!(f > 0))
        throw new RangeError('strataZoom: the factor must be positive');
    distance = camera.position.distanceTo(centre) / radius * f;
    place();
    stable = 0;
    dirty = true;
    window.strataReady = false;
};

window.addEventListener('resize', () => {
    camera.aspect = window.innerWidth / window.innerHeight;
    camera.updateProjectionMatrix();
    renderer.setSize(window.innerWidth, window.innerHeight);
    tiles.setResolutionFromRenderer(camera, renderer);
});

// Drawing on demand: when the view or the loaded tiles changed, and while
// tiles are still loading at most every LOADING_MS, so that software
// rendering of hundreds of tiles does not starve the parsing of the rest.
const LOADING_MS = 250;
let dirty = true;
let lastDraw = 0;
const touch = () => { dirty = true; };
controls.addEventListener('change', touch);
tiles.addEventListener('load-model', touch);
tiles.addEventListener('dispose-model', touch);
tiles.addEventListener('tile-visibility-change', touch);
tiles.addEventListener('needs-render', touch);
window.addEventListener('resize', touch);

const info = document.getElementById('info');
let stable = 0;
function frame(now) {
    requestAnimationFrame(frame);
    controls.update();
    // near and far planes that follow the zoom: depth precision close up
    const d = camera.position.distanceTo(centre);
    camera.near = Math.max((d - radius) * 0.2, radius * 1e-5);
    camera.far = d + 2 * radius;
    camera.updateProjectionMatrix();
    camera.updateMatrixWorld();
    tiles.update();

    const s = tiles.stats;
    const pending = s.queued + s.downloading + s.parsing;
    if (dirty && (pending === 0 || now - lastDraw >= LOADING_MS)) {
        renderer.render(scene, camera);
        dirty = false;
        lastDraw = now;
    }
    let depth = -1, shallowest = Infinity;
    for (const t of tiles.visibleTiles) {
        const k = t.internal ? t.internal.depth : -1;
        depth = Math.max(depth, k);
        shallowest = Math.min(shallowest, k);
    }
    window.strataShallowest = shallowest === Infinity ? -1 : shallowest;
    window.strataVisible = tiles.visibleTiles.size;
    window.strataDepth = depth;
    // ready: drawn with nothing pending for STABLE_FRAMES frames
    stable = framed && pending === 0 && !dirty && tiles.visibleTiles.size > 0 ? stable + 1 : 0;
    if (stable >= STABLE_FRAMES)
        window.strataReady = true;
    const text = `${window.strataVisible} tiles drawn, depth ${depth}` +
        (pending ? `, ${pending} loading` : '') + ' \u2014 drag to orbit, wheel to zoom';
    if (info.textContent !== text)
        info.textContent = text;
}
requestAnimationFrame(frame);
