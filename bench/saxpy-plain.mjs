// examples/saxpy.ts as a plain Node program: the same computation (out = a·x + y in f32 on 1M elements,
// then the same reference check) with the kernel written as a loop, no CudaScript. bench/startup.mjs
// compares `cudascript run examples/saxpy.ts` with this.
const n = 1 << 20;
const a = 2.5;
const x = new Float32Array(n);
const y = new Float32Array(n);
for (let i = 0; i < n; i++) {
  x[i] = Math.sin(i * 0.001);
  y[i] = Math.cos(i * 0.002);
}

const t0 = performance.now();
const out = new Float32Array(n);
// Each operation rounded to f32, as the kernel computes it.
for (let i = 0; i < n; i++) out[i] = Math.fround(Math.fround(a) * x[i]) + y[i];
const elapsed = performance.now() - t0;

const expected = new Float32Array(n);
let maxError = 0;
for (let i = 0; i < n; i++) {
  expected[i] = Math.fround(Math.fround(Math.fround(a) * x[i]) + y[i]);
  maxError = Math.max(maxError, Math.abs(out[i] - expected[i]));
}
const ok = maxError === 0;
console.log(`saxpy: ${n} elements in plain node in ${elapsed.toFixed(1)} ms, max |error| ${maxError} — ${ok ? "OK" : "FAILED"}`);
if (!ok) process.exitCode = 1;
