/**
 * SAXPY (out = a·x + y) on 1M elements: the CudaScript "hello world".
 *
 *   npx cudascript run examples/saxpy.ts
 */
import { cuda, f32, report, type Array1D } from "cudascript";

export const saxpy = cuda.jit((a: f32, x: Array1D<f32>, y: Array1D<f32>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = a * x[i] + y[i];
  }
});

const n = 1 << 20;
const a = 2.5;
const x = new Float32Array(n);
const y = new Float32Array(n);
for (let i = 0; i < n; i++) {
  x[i] = Math.sin(i * 0.001);
  y[i] = Math.cos(i * 0.002);
}

const dX = cuda.toDevice(x);
const dY = cuda.toDevice(y);
const dOut = cuda.deviceArrayLike(x);
const threadsPerBlock = 256;
const blocks = Math.ceil(n / threadsPerBlock);

const start = cuda.event();
const end = cuda.event();
start.record();
saxpy.launch(blocks, threadsPerBlock)(a, dX, dY, dOut);
end.record();
end.synchronize();
const out = dOut.copyToHost();

// Plain-TypeScript reference with the kernel's f32 arithmetic (each operation rounded to f32).
const expected = new Float32Array(n);
let maxError = 0;
for (let i = 0; i < n; i++) {
  expected[i] = Math.fround(Math.fround(Math.fround(a) * x[i]!) + y[i]!);
  maxError = Math.max(maxError, Math.abs(out[i]! - expected[i]!));
}
// Shown in the VS Code results panel (a no-op elsewhere).
report("out", out, { reference: expected });
const ok = maxError === 0;
console.log(`saxpy: ${n} elements on the ${cuda.backend} in ${cuda.eventElapsedTime(start, end).toFixed(1)} ms, max |error| ${maxError} — ${ok ? "OK" : "FAILED"}`);
if (!ok) process.exitCode = 1;
