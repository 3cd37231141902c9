/**
 * Diagnostics say what to write instead, in words a newcomer can act on, without repeating themselves —
 * and the launch checks do not refuse what the docs allow.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkKernel, checkSources, codes } from "../../../test/dist/support/check-sources";

const only = (r: ReturnType<typeof checkKernel>, code: string): string => {
  const d = r.diagnostics.filter((x) => x.code === code);
  assert.equal(d.length, 1, r.diagnostics.map((x) => `${x.code}: ${x.message}`).join("\n"));
  return d[0]!.message;
};

test("CS1015 for Math.random in a kernel points to cuda.random", () => {
  const r = checkKernel(`export const k = cuda.jit((out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = Math.random();
});`);
  const m = only(r, "CS1015");
  assert.match(m, /cuda\.random\.xoroshiro128pUniformFloat32\(states, i\)/);
  assert.match(m, /cuda\.random\.createXoroshiro128pStates\(n, seed\)/);
  assert.match(m, /Xoroshiro128pStates/);
});

test("CS2002 on Math.floor(…) says Math.floor gives a float and offers an i32 variable", () => {
  const r = checkKernel(`export const k = cuda.jit((x: Float32Array, hist: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) cuda.atomic.add(hist, Math.floor(x[i] * 10), 1);
});`);
  const m = only(r, "CS2002");
  assert.match(m, /Math\.floor gives a float \(f32\)/);
  assert.match(m, /let bin: i32 = Math\.floor\(x\[i\] \* 10\)/);
  assert.doesNotMatch(m, /Math\.floor\(Math\.floor/);
});

test("CS3002 for a module let says what to write once", () => {
  const r = checkKernel(`let TPB = 128;
export const k = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(TPB, f32);
  s[0] = 1;
  out[0] = s[0];
});`);
  const m = only(r, "CS3002");
  assert.doesNotMatch(m, /module const.*module const/);
  assert.match(m, /'TPB' is a module `let`, which can change: use a module constant \(const TPB = 128\)/);
});

test("CS3003 offers dynamic shared memory only for a size some GPU can give a block", () => {
  const within = checkKernel(`export const k = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(16384, f32);
  s[0] = 1;
  out[0] = s[0];
});`);
  assert.match(only(within, "CS3003"), /dynamic shared memory \(cuda\.shared\.array\(0, dtype\)\)/);
  const over = checkKernel(`export const k = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(262144, f32);
  s[0] = 1;
  out[0] = s[0];
});`);
  const m = only(over, "CS3003");
  assert.doesNotMatch(m, /dynamic shared memory/);
  assert.match(m, /no GPU gives a block more than 227 KiB/);
});

const KERNEL = `export const k = cuda.jit((out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = i;
});
const out = new Float32Array(4096);
`;

test("CS4001 says which launch to write: the same threads in blocks of 1024, or forall", () => {
  const r = checkKernel(`${KERNEL}k.launch(2, 2048)(out);\n`);
  const m = only(r, "CS4001");
  assert.match(m, /k\.launch\(4, 1024\)\(…\)/);
  assert.match(m, /k\.forall\(4096\)\(…\)/);
  const r2 = checkKernel(`${KERNEL}k.launch(1, [64, 32])(out);\n`);
  const m2 = only(r2, "CS4001");
  assert.match(m2, /k\.launch\(\[1, 2\], \[64, 16\]\)\(…\)/);
});

test("CS4005 accepts { re, im } for a c64/c128 scalar parameter, as the docs allow", () => {
  const r = checkSources({
    "k.ts": `import { cuda, c64, c128, type Array1D } from "cudascript";
export const scale = cuda.jit((a: c64, b: c128, z: Array1D<c64>) => {
  const i = cuda.grid(1);
  if (i < z.length) z[i] = cuda.complex.mul(z[i], a);
});
const z = cuda.deviceArray(4, c64);
scale.launch(1, 4)({ re: 1, im: 2 }, { re: 0.5, im: -1 }, z);
scale.launch(1, 4)({ x: 1 }, { re: 0.5, im: -1 }, z);
`,
  });
  assert.deepEqual(codes(r, 0), ["CS4005@8"]);
  assert.match(r.diagnostics[0]!.message, /takes a complex number \{ re, im \}/);
});

test("CS4009: a kernel called like a function (no launch configuration) says to write k.launch(blocks, threads)(…)", () => {
  const r = checkKernel(`${KERNEL}k(out);\nexport function run(data: Float32Array): void {\n  k(data);\n}\n`);
  assert.deepEqual(codes(r).filter((c) => c.startsWith("CS4009")), ["CS4009@6", "CS4009@8"]);
  const m = r.diagnostics.find((d) => d.code === "CS4009")!.message;
  assert.match(m, /'k' is a kernel: launch it with k\.launch\(blocks, threadsPerBlock\)\(out\)/);
  assert.match(m, /k\.forall\(n\)\(out\)/);
});

test("CS5004 on an integer expression that became f32 through `/` names the division and the integer fix", () => {
  const r = checkKernel(`export const k = cuda.jit((offset: i32, dim: i32, out: Int32Array) => {
  const idx: i32 = (offset + 16 / 2) * dim + offset;
  out[0] = idx;
  out[1] = (offset + dim / 2) * dim;
});`);
  assert.deepEqual(codes(r), ["CS5004@2", "CS5004@4"]);
  const [decl, store] = r.diagnostics.map((d) => d.message);
  assert.match(decl!, /^this stores a f32 value into the i32 'idx', which truncates it/);
  assert.match(decl!, /it is f32 because 16 \/ 2 is true division, which gives a float even on integers: write \(16 \/ 2\) \| 0 for integer division/);
  assert.match(store!, /it is f32 because dim \/ 2 is true division/);
});

test("CS5004 at a device function's argument and its declared result name the parameter and the function", () => {
  const r = checkKernel(`const twice = cuda.device((n: i32): i32 => n * 2.5);
export const k = cuda.jit((x: Float32Array, out: Int32Array) => {
  out[0] = twice(x[0]);
});`);
  assert.deepEqual(codes(r), ["CS5004@1", "CS5004@3"]);
  assert.match(r.diagnostics[0]!.message, /into the i32 result of 'twice'/);
  assert.match(r.diagnostics[1]!.message, /into parameter 'n' \(i32\) of 'twice'/);
  assert.doesNotMatch(r.diagnostics[1]!.message, /true division/);
});

test("CS4009 only where the name is the kernel: a parameter, local or function of that name shadows it", () => {
  const r = checkKernel(`${KERNEL}export function run(k: (a: Float32Array) => void): void {
  k(out);
}
export function other(): void {
  const k = (a: Float32Array) => a;
  k(out);
  for (const k of [Math.abs]) k(1);
  function inner(): void {
    k(out);
  }
  inner();
}
`);
  assert.deepEqual(codes(r), []);
});

test("CS4009 for a kernel imported from another file (in a file that uses cudascript: the checker skips files that do not)", () => {
  const r = checkSources({
    "main.ts": `import { cuda } from "cudascript";\nimport { k } from "./kernels";\nconst out = cuda.toDevice(new Float32Array(8));\nk(out);\n`,
    "kernels.ts": `import { cuda } from "cudascript";\nexport const k = cuda.jit((out: Float32Array) => {\n  out[0] = 1;\n});\n`,
  });
  assert.deepEqual(codes(r, 0), ["CS4009@4"]);
});
