// Draws the web app's icons (src/web/static/icons/) with no dependency and no network: a check
// mark on the accent blue, 4x4 supersampled, written as PNG with zlib. Run it again after a
// change to the drawing and commit the files: `node tools/make-icons.mjs`.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'web', 'static', 'icons');
const BLUE = [0x0b, 0x5e, 0xd7];
const WHITE = [0xff, 0xff, 0xff];
// The check mark's three points, in a 0..1 square, and its stroke width.
const CHECK = [
  [0.27, 0.52],
  [0.43, 0.68],
  [0.74, 0.35],
];
const STROKE = 0.085;

function distanceToSegment(px, py, [ax, ay], [bx, by]) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - ax - t * dx, py - ay - t * dy);
}

/** Coverage of the shapes at a point: 0 outside, 1 background, 2 the check mark. */
function shade(x, y, { rounded, scale }) {
  const inset = (1 - scale) / 2;
  const u = (x - inset) / scale;
  const v = (y - inset) / scale;
  if (rounded) {
    const r = 0.2;
    const cx = Math.min(Math.max(x, r), 1 - r);
    const cy = Math.min(Math.max(y, r), 1 - r);
    if (Math.hypot(x - cx, y - cy) > r) return 0;
  }
  const near = Math.min(distanceToSegment(u, v, CHECK[0], CHECK[1]), distanceToSegment(u, v, CHECK[1], CHECK[2]));
  return near <= STROKE / 2 ? 2 : 1;
}

function draw(size, options) {
  const rows = [];
  const n = 4;
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < n; sy++)
        for (let sx = 0; sx < n; sx++) {
          const s = shade((x + (sx + 0.5) / n) / size, (y + (sy + 0.5) / n) / size, options);
          if (s === 0) continue;
          const color = s === 2 ? WHITE : BLUE;
          r += color[0];
          g += color[1];
          b += color[2];
          a += 255;
        }
      const covered = a / 255 || 1;
      row.set([Math.round(r / covered), Math.round(g / covered), Math.round(b / covered), Math.round(a / (n * n))], 1 + x * 4);
    }
    rows.push(row);
  }
  return png(size, Buffer.concat(rows));
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buffer) {
  let c = 0xffffffff;
  for (const byte of buffer) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}
function png(size, pixels) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(pixels, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// Rounded squares for browsers; a full square with the mark inside the safe zone for maskable icons.
writeFileSync(path.join(out, 'icon-192.png'), draw(192, { rounded: true, scale: 1 }));
writeFileSync(path.join(out, 'icon-512.png'), draw(512, { rounded: true, scale: 1 }));
writeFileSync(path.join(out, 'maskable-512.png'), draw(512, { rounded: false, scale: 0.8 }));
writeFileSync(path.join(out, 'apple-touch-icon.png'), draw(180, { rounded: false, scale: 1 }));
