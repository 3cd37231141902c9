/**
 * The Mandelbrot set as an escape-time image (an Int32Array viewed as Array2D), with an ASCII
 * preview.
 *
 *   npx cudascript run examples/mandelbrot.ts
 */
import { cuda, f32, i32, report, type Array2D } from "cudascript";

const MAX_ITER = 200;

export const mandelbrot = cuda.jit((x0: f32, y0: f32, step: f32, image: Array2D<i32>) => {
  const [col, row] = cuda.grid(2);
  if (row >= image.shape[0] || col >= image.shape[1]) return;
  const cr: f32 = x0 + col * step;
  const ci: f32 = y0 + row * step;
  let zr: f32 = 0;
  let zi: f32 = 0;
  let n = 0;
  while (n < MAX_ITER && zr * zr + zi * zi <= 4) {
    const t: f32 = zr * zr - zi * zi + cr;
    zi = 2 * zr * zi + ci;
    zr = t;
    n++;
  }
  image[row][col] = n;
});

const W = 640, H = 400;
const x0 = -2.2, y0 = -1.25, step = 3.2 / W;
const image = cuda.ndarray(new Int32Array(W * H), [H, W]);
const dImage = cuda.toDevice(image);
mandelbrot.launch([Math.ceil(W / 16), Math.ceil(H / 16)], [16, 16])(x0, y0, step, dImage);
dImage.copyToHost(image);

// Reference in plain TypeScript with the same f32 arithmetic.
const f = Math.fround;
let mismatches = 0;
for (let row = 0; row < H; row++) {
  for (let col = 0; col < W; col++) {
    const cr = f(f(x0) + f(f(col) * f(step)));
    const ci = f(f(y0) + f(f(row) * f(step)));
    let zr = 0, zi = 0, n = 0;
    while (n < MAX_ITER && f(f(zr * zr) + f(zi * zi)) <= 4) {
      const t = f(f(f(zr * zr) - f(zi * zi)) + cr);
      zi = f(f(f(2 * zr) * zi) + ci);
      zr = t;
      n++;
    }
    if (image[row][col] !== n) mismatches++;
  }
}

const shades = " .:-=+*#%@";
const lines: string[] = [];
for (let r = 0; r < 24; r++) {
  let s = "";
  for (let c = 0; c < 72; c++) {
    const n: number = image[Math.floor(((r + 0.5) * H) / 24)][Math.floor(((c + 0.5) * W) / 72)];
    s += n >= MAX_ITER ? "@" : shades[Math.min(shades.length - 2, Math.floor(Math.sqrt(n / MAX_ITER) * (shades.length - 1)))];
  }
  lines.push(s);
}
console.log(lines.join("\n"));
const inside = image.data.reduce((k: number, v: number) => k + (v >= MAX_ITER ? 1 : 0), 0);
report("image", image); // drawn as a heatmap in the VS Code results panel
const ok = mismatches === 0;
console.log(`mandelbrot: ${W}×${H} image, ${inside} points inside, ${mismatches} pixels differ from the TypeScript reference — ${ok ? "OK" : "FAILED"}`);
if (!ok) process.exitCode = 1;
