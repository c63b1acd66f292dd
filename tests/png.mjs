// PNG screenshots of the viewer tests, decoded (8-bit RGB or RGBA, not
// interlaced: what Chromium's Page.captureScreenshot writes).
import { inflateSync } from 'node:zlib';

export const BACKGROUND = [0x0b, 0x0e, 0x14]; // the viewer page's clear colour

// {width, height, channels, pixels}: pixels the rows one after the other,
// `channels` bytes a pixel.
export function decode(png) {
    let pos = 8, w = 0, h = 0, channels = 0;
    const idat = [];
    while (pos < png.length) {
        const len = png.readUInt32BE(pos), type = png.toString('latin1', pos + 4, pos + 8);
        const body = png.subarray(pos + 8, pos + 8 + len);
        if (type === 'IHDR') {
            w = body.readUInt32BE(0);
            h = body.readUInt32BE(4);
            if (body[8] !== 8 || (body[9] !== 2 && body[9] !== 6) || body[12] !== 0)
                throw new Error(`screenshot: unexpected PNG format (depth ${body[8]}, colour ${body[9]})`);
            channels = body[9] === 6 ? 4 : 3;
        } else if (type === 'IDAT') {
            idat.push(body);
        }
        pos += 12 + len;
    }
    const raw = inflateSync(Buffer.concat(idat));
    const stride = w * channels;
    const pixels = Buffer.alloc(stride * h);
    let prev = Buffer.alloc(stride);
    for (let y = 0; y < h; y++) {
        const f = raw[y * (stride + 1)], row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
        const cur = pixels.subarray(y * stride, (y + 1) * stride);
        for (let i = 0; i < stride; i++) {
            const a = i >= channels ? cur[i - channels] : 0, b = prev[i];
            const c = i >= channels ? prev[i - channels] : 0;
            let p = 0;
            if (f === 1) p = a;
            else if (f === 2) p = b;
            else if (f === 3) p = (a + b) >> 1;
            else if (f === 4) {
                const q = a + b - c, pa = Math.abs(q - a), pb = Math.abs(q - b), pc = Math.abs(q - c);
                p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
            }
            cur[i] = (row[i] + p) & 255;
        }
        prev = cur;
    }
    return { width: w, height: h, channels, pixels };
}

// Whether pixel i of a decoded image is background (no channel further
// than 8 from the clear colour).
export function isBackground(img, i) {
    const o = i * img.channels, p = img.pixels;
    return Math.abs(p[o] - BACKGROUND[0]) <= 8 && Math.abs(p[o + 1] - BACKGROUND[1]) <= 8 &&
        Math.abs(p[o + 2] - BACKGROUND[2]) <= 8;
}
