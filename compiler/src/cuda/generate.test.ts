import { test } from "node:test";
import assert from "node:assert/strict";
import { nvrtcOrSkip } from "../../../test/dist/support/toolchain-or-skip";
import { checkKernel, checkSources, VIRTUAL_ROOT } from "../../../test/dist/support/check-sources";
import type { IrModule } from "../ir/nodes";
import { CudaGenError, generateCuda } from "./generate";
import { serializeIr } from "../js/artifact";
import { literal, shortestF32 } from "./literals";
import { NameTable } from "./names";

function moduleOf(body: string): IrModule {
  const r = checkKernel(body);
  const errors = r.diagnostics.filter((d) => d.severity === "error");
  assert.deepEqual(errors.map((d) => `${d.code} ${d.message}`), []);
  return r.module;
}

function cuda(body: string): string {
  return generateCuda(moduleOf(body), { lineDirectives: false }).source;
}

const SAXPY = `export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = a * x[i] + y[i];
  }
});`;

test("kernels are extern \"C\" with the documented parameter ABI and source names", () => {
  const g = generateCuda(moduleOf(SAXPY), { lineDirectives: false });
  assert.match(
    g.source,
    /^extern "C" __global__ void saxpy\(float a, float\* __restrict__ x, int x_len, float\* __restrict__ y, int y_len, float\* __restrict__ out, int out_len\) \{$/m,
  );
  assert.match(g.source, /^ {2}const int i = \(int\)\(blockIdx\.x \* blockDim\.x \+ threadIdx\.x\);$/m);
  assert.match(g.source, /^ {4}out\[i\] = a \* x\[i\] \+ y\[i\];$/m);
  const k = g.kernels[0]!;
  assert.equal(k.symbol, "saxpy");
  assert.deepEqual(
    k.params.map((p) => [p.name, p.kind, p.dtype, p.rank, p.cParams]),
    [
      ["a", "scalar", "f32", 0, ["float a"]],
      ["x", "array", "f32", 1, ["float* __restrict__ x", "int x_len"]],
      ["y", "array", "f32", 1, ["float* __restrict__ y", "int y_len"]],
      ["out", "array", "f32", 1, ["float* __restrict__ out", "int out_len"]],
    ],
  );
});

test("N-D arrays pass one int extent and one int element stride per dimension and index through the strides", () => {
  const src = cuda(`export const kern = cuda.jit((a: Array3D<f32>, out: Array2D<i32>) => {
  const [i, j, k] = cuda.grid(3);
  if (i < a.shape[0] && j < a.shape[1] && k < a.shape[2]) { a[i][j][k] = out[i][j]; }
});`);
  assert.match(src, /void kern\(float\* __restrict__ a, int a_shape0, int a_shape1, int a_shape2, int a_stride0, int a_stride1, int a_stride2, int\* __restrict__ out, int out_shape0, int out_shape1, int out_stride0, int out_stride1\)/);
  assert.match(src, /a\[i \* a_stride0 \+ j \* a_stride1 \+ k \* a_stride2\] = \(float\)out\[i \* out_stride0 \+ j \* out_stride1\];/);
});

test("#line directives and the lineMap point every statement at its TypeScript line", () => {
  const m = moduleOf(SAXPY);
  const g = generateCuda(m);
  const lines = g.source.split("\n");
  // Replay the preprocessor: the TypeScript line it assigns to each generated line.
  const assigned = new Map<number, number>();
  let current: number | undefined;
  lines.forEach((text, i) => {
    const d = /^#line (\d+) "([^"]+)"$/.exec(text);
    if (d) {
      current = Number(d[1]);
      assert.equal(d[2], "k.ts");
      return;
    }
    if (current !== undefined) assigned.set(i + 1, current++);
  });
  assert.ok(g.lineMap.length >= 4);
  for (const e of g.lineMap) {
    assert.equal(e.file, `${VIRTUAL_ROOT}/k.ts`);
    assert.equal(assigned.get(e.generatedLine), e.line, `generated line ${e.generatedLine}: ${lines[e.generatedLine - 1]}`);
  }
  // `out[i] = …` is line 5 of k.ts (line 1 is the import checkKernel adds).
  const store = g.lineMap.find((e) => lines[e.generatedLine - 1]!.includes("out[i] = a * x[i] + y[i];"));
  assert.equal(store?.line, 5);
  // Directives only where the preprocessor's own count is off: fewer than one per statement.
  assert.ok(lines.filter((l) => l.startsWith("#line")).length < g.lineMap.length);
});

test("i32 + - * << and negation wrap through unsigned; u32 and comparisons stay plain", () => {
  const src = cuda(`export const kern = cuda.jit((a: Int32Array, u: Uint32Array, s: i32) => {
  const i = cuda.grid(1);
  const j = i * 3 + s - 1;
  a[0] = -j;
  a[1] = j << s;
  a[2] = j >> 2;
  u[0] = u[1] * 1664525 + 1013904223;
  u[2] = u[3] >>> s;
  a[3] = (a[4] / s) | 0;
  a[5] = a[5] % s;
});`);
  assert.match(src, /const int j = \(int\)\(\(unsigned\)i \* 3u \+ \(unsigned\)s - 1u\);/);
  assert.match(src, /a\[0\] = \(int\)\(0u - \(unsigned\)j\);/);
  assert.match(src, /a\[1\] = \(int\)\(\(unsigned\)j << \(s & 31\)\);/);
  assert.match(src, /a\[2\] = j >> 2;/);
  assert.match(src, /u\[0\] = u\[1\] \* 1664525u \+ 1013904223u;/);
  assert.match(src, /u\[2\] = u\[3\] >> \(s & 31\);/);
  // A divisor that may be 0 or -1 goes through cs_div / cs_rem (defined there, as in the simulator).
  assert.match(src, /a\[3\] = cs_div<int>\(a\[4\], s\);/);
  assert.match(src, /a\[5\] = cs_rem<int>\(a\[5\], s\);/);
});

test("f32 math stays f32; Math.round is cs_round (JavaScript's rounding); min/max are cs_fmin/cs_fmax (fminf/fmaxf with -0 below +0); float % is fmodf", () => {
  const src = cuda(`export const kern = cuda.jit((x: Float32Array) => {
  x[0] = Math.sqrt(x[1]) + Math.exp(x[2]) + Math.round(x[3]) + Math.min(x[4], x[5]) + Math.atan2(x[6], x[7]) + (x[8] % x[9]);
});`);
  assert.match(src, /sqrtf\(x\[1\]\) \+ expf\(x\[2\]\) \+ cs_round\(x\[3\]\) \+ cs_fmin\(x\[4\], x\[5\]\) \+ atan2f\(x\[6\], x\[7\]\) \+ fmodf\(x\[8\], x\[9\]\)/);
  // The kernel itself (the helper has f32 and f64 overloads; the f32 one is chosen).
  const body = src.slice(src.indexOf('extern "C"'));
  assert.doesNotMatch(body, /\bsqrt\(|\bdouble\b/);
});

test("Numba's cuda.cbrt is cbrtf on f32 and cbrt on f64, as Math.cbrt; a wrong argument count is CS2006 naming cuda.cbrt", () => {
  const src = cuda(`export const kern = cuda.jit((x: Float32Array, y: Float64Array) => {
  x[0] = cuda.cbrt(x[1]) + Math.cbrt(x[2]);
  y[0] = cuda.cbrt(y[1]);
});`);
  assert.match(src, /x\[0\] = cbrtf\(x\[1\]\) \+ cbrtf\(x\[2\]\);/);
  assert.match(src, /y\[0\] = cbrt\(y\[1\]\);/);
  const bad = checkKernel(`export const kern = cuda.jit((x: Float32Array) => {
  x[0] = cuda.cbrt(x[1], x[2]);
});`);
  assert.deepEqual(bad.diagnostics.map((d) => `${d.code} ${d.message}`), ["CS2006 cuda.cbrt takes 1 argument, got 2"]);
});

test("warp match intrinsics: __match_any_sync on the value's own type, matchAllSync through a helper returning the mask or 0, eqSync is __uni_sync, lanemaskLt reads %lanemask_lt", () => {
  const src = cuda(`export const kern = cuda.jit((k: Int32Array, x: Float64Array, out: Uint32Array) => {
  out[0] = cuda.matchAnySync(0xffffffff, k[0]) | cuda.matchAnySync(0xffffffff, x[0]);
  out[1] = cuda.matchAllSync(0xffffffff, k[1] > 0);
  out[2] = cuda.eqSync(0xffffffff, x[2]) ? cuda.lanemaskLt() : 0;
});`);
  assert.match(src, /out\[0\] = __match_any_sync\(0xffffffffu, k\[0\]\) \| __match_any_sync\(0xffffffffu, x\[0\]\);/);
  // A boolean goes as an int (CUDA has no bool overload).
  assert.match(src, /out\[1\] = cs_match_all_sync\(0xffffffffu, \(int\)\(k\[1\] > 0\)\);/);
  assert.match(src, /out\[2\] = __uni_sync\(0xffffffffu, x\[2\] != 0\.0 && x\[2\] == x\[2\]\) != 0 \? cs_lanemask_lt\(\) : 0u;/);
  assert.match(src, /__match_all_sync\(mask, value, &all\)/);
  assert.match(src, /mov\.u32 %0, %%lanemask_lt;/);
});

test("cuda.selp(c, a, b) generates exactly what c ? a : b generates (typing, conversions, booleans); wrong arity is CS2006", () => {
  const body = (select: (c: string, a: string, b: string) => string) => `export const kern = cuda.jit((x: Float32Array, k: Int32Array, out: Float64Array) => {
  const i = cuda.grid(1);
  const a = ${select("i < k.length", "k[i]", "x[i]")};
  const b = ${select("k[i]", "x[i] > 0", "false")};
  out[i] = ${select("b", "a", "1.5")} + ${select("i % 2 === 0", "Math.sqrt(a)", "k[i]")};
});`;
  const viaSelp = cuda(body((c, a, b) => `cuda.selp(${c}, ${a}, ${b})`));
  const viaTernary = cuda(body((c, a, b) => `(${c} ? ${a} : ${b})`));
  assert.equal(viaSelp, viaTernary);
  assert.match(viaSelp, /const float a = i < k_len \? \(float\)k\[i\] : x\[i\];/);
  const bad = checkKernel(`export const kern = cuda.jit((x: Float32Array) => {
  x[0] = cuda.selp(x[1] > 0, x[2]);
});`);
  assert.deepEqual(bad.diagnostics.map((d) => `${d.code} ${d.message}`), ["CS2006 cuda.selp takes 3 arguments, got 2"]);
});

test("counted loops keep k++; other loop shapes become for/while/do-while", () => {
  const src = cuda(`export const kern = cuda.jit((x: Int32Array) => {
  let n = 0;
  for (let k = 0; k < x.length; k++) { n += x[k]; }
  for (let s = 64; s > 0; s >>= 1) { n ^= s; }
  while (n > 100) { n = (n / 2) | 0; }
  do { n--; } while (n > 50);
  x[0] = n;
});`);
  assert.match(src, /for \(int k = 0; k < x_len; k\+\+\) \{/);
  assert.match(src, /for \(int s = 64; s > 0; s >>= 1\) \{/);
  assert.match(src, /while \(n > 100\) \{/);
  assert.match(src, /do \{\n\s+n = \(int\)\(\(unsigned\)n - 1u\);\n\s+\} while \(n > 50\);/);
});

test("C++ keywords, CUDA names and shadowed locals are renamed; NVRTC accepts the result", (t) => {
  const m = moduleOf(`export const kern = cuda.jit((a: Float32Array, n: i32) => {
  let int = 1;
  const min = Math.min(int, n);
  let v = 0;
  { let v = 3; v++; int += v; }
  const threadIdx = NaN;
  a[0] = min + v + threadIdx + -Infinity + Math.sign(a[2]) + (a[3] ? 1 : 0);
  console.log("100% done", n, a[0]);
});`);
  const src = generateCuda(m).source;
  assert.match(src, /int int_\d+ = 1;/);
  assert.match(src, /const int min_\d+ = min\(int_\d+, n\);/);
  assert.match(src, /int v_\d+ = 3;/);
  assert.match(src, /const float threadIdx_\d+ = __int_as_float\(\(int\)0x7fc00000u\);/);
  assert.match(src, /printf\("100%% done %d %g\\n", n, \(double\)a\[0\]\);/);
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const r = nvrtc.compile({ source: src, name: "k.cu", options: ["--gpu-architecture=compute_80"] });
  assert.ok(r.ok, r.log);
});

test("helpers are emitted only when used", () => {
  const plain = cuda(SAXPY);
  assert.doesNotMatch(plain, /cs_laneid|cs_dynamic_smem|cs_atomicMax/);
  const src = cuda(`export const kern = cuda.jit((x: Float32Array, out: Float64Array) => {
  const buf = cuda.shared.array(0, f32);
  buf[cuda.threadIdx.x] = x[0];
  cuda.atomic.max(x, 0, buf[cuda.laneid]);
  cuda.atomic.min(out, 0, 1.5);
  cuda.atomic.add(out, 1, 2.5);
});`);
  assert.match(src, /#ifndef CUDASCRIPT_EMULATION\n\/\*[^\n]*\*\/\nextern __shared__ __align__\(16\) unsigned char cs_dynamic_smem\[\];/);
  assert.match(src, /float\* buf = \(float\*\)cs_dynamic_smem;/);
  assert.match(src, /cs_atomicMax\(&x\[0\], buf\[cs_laneid\(\)\]\);/);
  assert.match(src, /static __device__ __forceinline__ __attribute__\(\(unused\)\) double cs_atomicMin\(double\* address, double value\)/);
  assert.match(src, /#if defined\(__CUDA_ARCH__\) && __CUDA_ARCH__ < 600/);
  assert.doesNotMatch(src, /float cs_atomicMin/);
});

test("atomic.nanmax/nanmin: a NaN-rule CAS loop on floats, atomicMax/atomicMin on integers (no NaN there)", () => {
  const src = cuda(`export const kern = cuda.jit((f: Float32Array, d: Float64Array, i: Int32Array, u: Uint32Array) => {
  cuda.atomic.nanmax(f, 0, 1.5);
  cuda.atomic.nanmin(d, 0, 2.5);
  cuda.atomic.nanmax(i, 0, 3);
  cuda.atomic.nanmin(u, 0, 4);
});`);
  assert.match(src, /cs_atomicNanMax\(&f\[0\], 1\.5f\);/);
  assert.match(src, /cs_atomicNanMin\(&d\[0\], 2\.5\);/);
  assert.match(src, /atomicMax\(&i\[0\], 3\);/);
  assert.match(src, /atomicMin\(&u\[0\], 4u\);/);
  assert.match(src, /static __device__ __forceinline__ __attribute__\(\(unused\)\) float cs_atomicNanMax\(float\* address, float value\)/);
  assert.match(src, /static __device__ __forceinline__ __attribute__\(\(unused\)\) double cs_atomicNanMin\(double\* address, double value\)/);
  assert.doesNotMatch(src, /double cs_atomicNanMax|float cs_atomicNanMin|cs_atomicMax|cs_atomicMin/);
});

test("device functions take arrays as pointer plus extents and element strides; static shared arrays pass their shape and C-order strides", () => {
  const src = cuda(`const total = cuda.device((r: Float32Array): f32 => {
  let s: f32 = 0;
  for (let i = 0; i < r.length; i++) { s += r[i]; }
  return s;
});
const corner = cuda.device((m: Array2D<f32>): f32 => m[0][m.shape[1] - 1]);
export const kern = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array([4, 8], f32);
  const row = cuda.shared.array(32, f32);
  out[0] = total(x) + total(row) + corner(tile);
});`);
  assert.match(src, /static __device__ __forceinline__ float total\(float\* r, int r_len, int r_stride0\)/);
  assert.match(src, /s \+= r\[i \* r_stride0\]/);
  assert.match(src, /static __device__ __forceinline__ float corner\(float\* m, int m_shape0, int m_shape1, int m_stride0, int m_stride1\)/);
  assert.match(src, /out\[0\] = total\(x, x_len, 1\) \+ total\(row, 32, 1\) \+ corner\(&tile\[0\]\[0\], 4, 8, 8, 1\);/);
});

test("device functions with the same name in two files get distinct C names", () => {
  const r = checkSources({
    "main.ts": `import { cuda, f32 } from "cudascript";
import { scale as other } from "./lib";
const scale = cuda.device((v: f32): f32 => v * 2);
export const kern = cuda.jit((x: Float32Array) => { x[0] = scale(x[0]) + other(x[1]); });`,
    "lib.ts": `import { cuda, f32 } from "cudascript";
export const scale = cuda.device((v: f32): f32 => v * 3);`,
  });
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  const g = generateCuda(r.module);
  const names = [...g.source.matchAll(/__forceinline__ float (\w+)\(/g)].map((m) => m[1]);
  assert.equal(names.length, 2);
  assert.notEqual(names[0], names[1]);
  assert.match(g.source, /#line \d+ "lib\.ts"/);
});

test("constant arrays become __constant__ data; non-finite values are stored as bit patterns", () => {
  const r = checkSources({
    "k.ts": `import { cuda } from "cudascript";
const W = new Float32Array([0.1, 0.25, -2]);
export const kern = cuda.jit((x: Float32Array) => {
  const w = cuda.const.arrayLike(W);
  x[0] = w[0] + w[w.length - 1];
});`,
  });
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  const src = generateCuda(r.module).source;
  assert.match(src, /__constant__ float W\[3\] = \{0\.1f, 0\.25f, -2\.0f\};/);
  assert.match(src, /x\[0\] = W\[0\] \+ W\[\(int\)\(3u - 1u\)\];/);
  // The front end only accepts finite literals, but the IR allows any f32: NaN/Infinity go in as bits.
  const odd: IrModule = { ...r.module, constArrays: [{ ...r.module.constArrays[0]!, values: [1, NaN, -Infinity] }] };
  const oddSrc = generateCuda(odd).source;
  assert.match(oddSrc, /union cs_f32_bits \{ unsigned bits; float value; \};/);
  assert.match(oddSrc, /__constant__ cs_f32_bits W\[3\] = \{\{0x3f800000u\}, \{0x7fc00000u\}, \{0xff800000u\}\};/);
  assert.match(oddSrc, /x\[0\] = W\[0\]\.value \+ W\[[^\]]+\]\.value;/);
});

test("IR the backend cannot express is a CudaGenError, not bad C++", () => {
  const m = moduleOf(SAXPY);
  const k = m.kernels[0]!;
  const broken: IrModule = { ...m, kernels: [{ ...k, body: [{ k: "return", span: k.span, value: { k: "var", type: { kind: "scalar", dtype: "f32" }, v: { id: 99, name: "ghost", type: { kind: "scalar", dtype: "f32" }, isParam: false, mutable: false, span: k.span }, span: k.span } }] }] };
  assert.throws(() => generateCuda(broken), (e: unknown) => e instanceof CudaGenError && /ghost/.test(e.message));
});

test("literals: shortest f32 text, exact f64, INT_MIN, masks in hex", () => {
  assert.equal(shortestF32(0.1), "0.1");
  assert.equal(shortestF32(Math.fround(1 / 3)), "0.33333334");
  assert.equal(literal("f32", 2).text, "2.0f");
  assert.equal(literal("f32", -0).text, "-0.0f");
  assert.equal(literal("f64", 0.1).text, "0.1");
  assert.equal(literal("f64", 1e300).text, "1e+300");
  assert.equal(literal("f64", Infinity).text, "__longlong_as_double((long long)0x7ff0000000000000ull)");
  assert.equal(literal("i32", -2147483648).text, "(-2147483647 - 1)");
  assert.equal(literal("u32", 0xffffffff).text, "0xffffffffu");
  assert.equal(literal("u32", 1664525).text, "1664525u");
});

test("name table: reserved words and prefixes get suffixes", () => {
  const n = new NameTable();
  assert.equal(n.fresh("saxpy"), "saxpy");
  assert.equal(n.fresh("saxpy"), "saxpy_2");
  assert.equal(n.fresh("float", "kernel"), "float_kernel");
  assert.equal(n.fresh("cs_helper"), "vcs_helper");
  assert.equal(n.fresh("$x"), "v_Sx");
});

test("launchBounds becomes __launch_bounds__ on the kernel, and NVRTC's PTX carries .maxntid and .minnctapersm", (t) => {
  const body = (options: string) => `export const scale = cuda.jit((x: Float32Array, s: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] *= s;
}${options});`;
  const both = cuda(body(", { launchBounds: [128, 4] }"));
  assert.match(both, /^extern "C" __global__ void __launch_bounds__\(128, 4\) scale\(float\* __restrict__ x, int x_len, float s\) \{$/m);
  const maxOnly = cuda(body(", { launchBounds: 256 }"));
  assert.match(maxOnly, /^extern "C" __global__ void __launch_bounds__\(256\) scale\(/m);
  assert.doesNotMatch(cuda(body("")), /__launch_bounds__/);
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const ptxOf = (src: string) => {
    const r = nvrtc.compile({ source: src, name: "k.cu", options: ["--gpu-architecture=compute_80"] });
    assert.ok(r.ok, r.log);
    return r.ptx!;
  };
  const ptx = ptxOf(both);
  assert.match(ptx, /\.maxntid 128, 1, 1/);
  assert.match(ptx, /\.minnctapersm 4/);
  const ptxMax = ptxOf(maxOnly);
  assert.match(ptxMax, /\.maxntid 256, 1, 1/);
  assert.doesNotMatch(ptxMax, /\.minnctapersm/);
});

test("constant arrays of NaN, infinities, -0, i64 and f16 generate the same C++ from serialized IR (the GPU backend's input) as from the checker's", () => {
  const r = checkSources({
    "k.ts": `import { cuda, Float16Array } from "cudascript";
const F = new Float32Array([NaN, -Infinity, -0, 1]);
const L = new BigInt64Array([-9223372036854775808n, 18n]);
const H = new Float16Array([NaN, -0, 65504]);
export const kern = cuda.jit((x: Float32Array, y: BigInt64Array, h: Float16Array) => {
  const f = cuda.const.arrayLike(F), l = cuda.const.arrayLike(L), c = cuda.const.arrayLike(H);
  x[0] = f[0] + f[1] + f[2];
  y[0] = l[0];
  h[0] = c[2];
});`,
  });
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  const direct = generateCuda(r.module).source;
  assert.match(direct, /__constant__ cs_f32_bits F\[4\] = \{\{0x7fc00000u\}, \{0xff800000u\}, \{0x80000000u\}, \{0x3f800000u\}\};/);
  assert.match(direct, /__constant__ long long L\[2\] = \{\(-9223372036854775807ll - 1\), 18ll\};/);
  assert.match(direct, /__constant__ unsigned short H\[3\] = \{0x7e00, 0x8000, 0x7bff\};/);
  assert.match(direct, /h\[0\] = \(\*\(cs_half\*\)&H\[2\]\);/);
  assert.equal(generateCuda(serializeIr(r.module)).source, direct);
});
