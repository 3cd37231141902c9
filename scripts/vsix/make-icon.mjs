#!/usr/bin/env node
/**
 * Draws the extension's 128×128 icon (client/marketplace/icon.png): a TypeScript-blue rounded tile with a
 * GPU die on it, a 4×4 grid of green cores. PNG written by hand (zlib only), so no image library.
 * usage: node scripts/vsix/make-icon.mjs [out.png]
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";

const SIZE = 128;
const out = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "..", "..", "client", "marketplace", "icon.png");

const BLUE = [49, 120, 198], DIE = [22, 42, 70], GREEN = [118, 185, 0], PIN = [200, 210, 225];

/** Coverage (0..1) of a rounded rectangle at pixel centre (x, y): smooth edges without supersampling. */
function roundedRect(x, y, x0, y0, x1, y1, r) {
  const cx = Math.min(Math.max(x, x0 + r), x1 - r), cy = Math.min(Math.max(y, y0 + r), y1 - r);
  const d = Math.hypot(x - cx, y - cy) - r;
  return Math.min(1, Math.max(0, 0.5 - d));
}

const rgba = Buffer.alloc(SIZE * SIZE * 4);
for (let y = 0; y < SIZE; y++) {
  for (let x = 0; x < SIZE; x++) {
    const px = x + 0.5, py = y + 0.5;
    let color = [0, 0, 0], alpha = roundedRect(px, py, 4, 4, 124, 124, 22);
    const paint = (c, a) => { color = color.map((v, i) => v * (1 - a) + c[i] * a); };
    paint(BLUE, 1);
    // pins on the four sides of the die
    for (let k = 0; k < 6; k++) {
      const t = 33 + k * 12.4;
      paint(PIN, Math.max(roundedRect(px, py, t, 22, t + 5, 106, 1.5), roundedRect(px, py, 22, t, 106, t + 5, 1.5)));
    }
    paint(DIE, roundedRect(px, py, 30, 30, 98, 98, 8));
    for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) paint(GREEN, roundedRect(px, py, 36 + i * 15, 36 + j * 15, 47 + i * 15, 47 + j * 15, 2.5));
    rgba.set([...color.map(Math.round), Math.round(alpha * 255)], (y * SIZE + x) * 4);
  }
}

const CRC = Array.from({ length: 256 }, (_, n) => { let c = n; for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1; return c >>> 0; });
const crc32 = (buf) => { let c = 0xffffffff; for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8); return (c ^ 0xffffffff) >>> 0; };
function chunk(type, data) {
  const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4); crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0); header.writeUInt32BE(SIZE, 4);
header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
const rows = Buffer.concat(Array.from({ length: SIZE }, (_, y) => Buffer.concat([Buffer.from([0]), rgba.subarray(y * SIZE * 4, (y + 1) * SIZE * 4)])));
writeFileSync(out, Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows, { level: 9 })), chunk("IEND", Buffer.alloc(0))]));
console.log(`wrote ${out}`);
