// Compare two screenshots of the same size (tests/skirts.sh):
//
//   node png-diff.mjs A.png B.png [X0,Y0,X1,Y1]
//
// Prints differ=N (pixels whose colour differs in any channel),
// visible=N (of those, pixels more than 8 apart in some channel: what
// the eye tells apart, the tolerance of png.mjs's isBackground), covered=N (pixels background in B, not in A) and uncovered=N (the
// other way round), and pixels=N (those compared): over the whole
// picture, or the box X0 <= x < X1, Y0 <= y < Y1 in fractions of its
// width and height.  Exits 1 when the sizes differ.
import { readFileSync } from 'node:fs';
import { decode, isBackground } from './png.mjs';

const [a, b] = process.argv.slice(2, 4).map((f) => decode(readFileSync(f)));
const box = (process.argv[4] || '0,0,1,1').split(',').map(Number);
if (a.width !== b.width || a.height !== b.height) {
    console.log(`sizes differ: ${a.width}x${a.height} and ${b.width}x${b.height}`);
    process.exit(1);
}
let differ = 0, visible = 0, covered = 0, uncovered = 0, pixels = 0;
for (let i = 0; i < a.width * a.height; i++) {
    const x = (i % a.width) / a.width, y = Math.floor(i / a.width) / a.height;
    if (x < box[0] || x >= box[2] || y < box[1] || y >= box[3])
        continue;
    pixels++;
    const oa = i * a.channels, ob = i * b.channels;
    let most = 0;
    for (let c = 0; c < 3; c++)
        most = Math.max(most, Math.abs(a.pixels[oa + c] - b.pixels[ob + c]));
    differ += most > 0;
    visible += most > 8;
    const ba = isBackground(a, i), bb = isBackground(b, i);
    covered += bb && !ba;
    uncovered += ba && !bb;
}
console.log(`differ=${differ} visible=${visible} covered=${covered} uncovered=${uncovered} pixels=${pixels}`);
