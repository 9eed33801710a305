// Draws the app icon (a document with rule lines and a check mark on a blue tile) and writes the PNGs
// electron-builder and the tray need. No image tools on this machine, so: shapes, 4x4 supersampling,
// and a minimal PNG encoder. Run: node build/icons/generate-icons.mjs
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const here = path.dirname(new URL(import.meta.url).pathname);

const roundedRect = (x, y, x0, y0, x1, y1, r) => {
  const cx = Math.max(x0 + r, Math.min(x, x1 - r));
  const cy = Math.max(y0 + r, Math.min(y, y1 - r));
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r && x >= x0 && x <= x1 && y >= y0 && y <= y1;
};
const segment = (x, y, ax, ay, bx, by, w) => {
  const t = Math.max(0, Math.min(1, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
  return (x - ax - t * (bx - ax)) ** 2 + (y - ay - t * (by - ay)) ** 2 <= (w / 2) ** 2;
};

const BLUE = [47, 111, 222];
const WHITE = [255, 255, 255];
const LINE = [150, 170, 200];
const GREEN = [34, 166, 94];

// Colour at a point of the unit square, or null for transparent.
function shade(x, y) {
  if (segment(x, y, 0.55, 0.7, 0.63, 0.78, 0.07) || segment(x, y, 0.63, 0.78, 0.8, 0.58, 0.07)) return WHITE;
  if ((x - 0.68) ** 2 + (y - 0.68) ** 2 <= 0.17 ** 2) return GREEN;
  const inPage = roundedRect(x, y, 0.24, 0.16, 0.72, 0.84, 0.04) && !(x > 0.6 && y < 0.28 && x - 0.6 > y - 0.16);
  if (inPage) {
    for (const ly of [0.36, 0.47, 0.58]) if (segment(x, y, 0.33, ly, ly === 0.58 ? 0.5 : 0.63, ly, 0.045)) return LINE;
    return WHITE;
  }
  if (roundedRect(x, y, 0.04, 0.04, 0.96, 0.96, 0.2)) return BLUE;
  return null;
}

function render(size) {
  const S = 4;
  const rgba = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0,
        g = 0,
        b = 0,
        a = 0;
      for (let sy = 0; sy < S; sy++) {
        for (let sx = 0; sx < S; sx++) {
          const c = shade((px + (sx + 0.5) / S) / size, (py + (sy + 0.5) / S) / size);
          if (c) {
            r += c[0];
            g += c[1];
            b += c[2];
            a += 1;
          }
        }
      }
      const o = (py * size + px) * 4;
      if (a > 0) {
        rgba[o] = Math.round(r / a);
        rgba[o + 1] = Math.round(g / a);
        rgba[o + 2] = Math.round(b / a);
      }
      rgba[o + 3] = Math.round((255 * a) / (S * S));
    }
  }
  return encodePng(size, size, rgba);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const byte of buf) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
};

function encodePng(width, height, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) rgba.copy(rows, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

// Linux wants a folder of NxN.png; macOS and Windows convert icon.png (1024) to icns/ico; the tray uses 32 px.
for (const size of [16, 32, 48, 64, 128, 256, 512])
  fs.writeFileSync(path.join(here, `${size}x${size}.png`), render(size));
fs.writeFileSync(path.join(here, 'icon.png'), render(1024));
fs.writeFileSync(path.join(here, 'tray.png'), render(32));
console.log(`icons written to ${here}`);
