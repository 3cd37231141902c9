#!/usr/bin/env node
// Checker latency on a generated 1,000-line file with 50 kernels: cold, and after one-line edits,
// side by side in the same process with TypeScript's own language service (getSemanticDiagnostics)
// for the same file after the same edit. Prints figures; asserts nothing (machines here are noisy).
//
//   node bench/check.mjs [--edits 40]
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { KernelChecker } = require(path.join(root, "compiler/dist/index.js"));
// The workspace TypeScript (what `tsc` and editors run), with its lib files on disk.
const ts = require(path.join(root, "node_modules/typescript"));

const editsArg = process.argv.indexOf("--edits");
const EDITS = editsArg > 0 ? Number(process.argv[editsArg + 1]) : 40;
const KERNELS = 50;

/** ~20 lines per kernel, several shapes, so the file is ~1,000 lines. */
function kernelSource(k) {
  switch (k % 4) {
    case 0:
      return `export const saxpy${k} = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const xi = x[i];
    const yi = y[i];
    let v = a * xi + yi;
    if (v > 1) {
      v = 1;
    } else if (v < -1) {
      v = -1;
    }
    out[i] = clamp(v, -0.5, 0.5) + ${k};
  }
});
`;
    case 1:
      return `export const reduce${k} = cuda.jit((x: Float32Array, partial: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) {
      tile[t] += tile[t + s];
    }
    cuda.syncthreads();
  }
  if (t === 0) {
    partial[cuda.blockIdx.x] = tile[0] * ${k};
  }
});
`;
    case 2:
      return `export const matmul${k} = cuda.jit((a: Array2D<f32>, b: Array2D<f32>, c: Array2D<f32>) => {
  const sa = cuda.shared.array([TILE, TILE], f32);
  const sb = cuda.shared.array([TILE, TILE], f32);
  const tx = cuda.threadIdx.x;
  const ty = cuda.threadIdx.y;
  const [row, col] = cuda.grid(2);
  let acc: f32 = 0;
  for (let t = 0; t < (((a.shape[1] + TILE - 1) / TILE) | 0); t++) {
    const ac = t * TILE + tx;
    const br = t * TILE + ty;
    sa[ty][tx] = row < a.shape[0] && ac < a.shape[1] ? a[row][ac] : 0;
    sb[ty][tx] = br < b.shape[0] && col < b.shape[1] ? b[br][col] : 0;
    cuda.syncthreads();
    for (let k = 0; k < TILE; k++) acc += sa[ty][k] * sb[k][tx];
    cuda.syncthreads();
  }
  if (row < c.shape[0] && col < c.shape[1]) c[row][col] = acc + ${k};
});
`;
    default:
      return `export const hist${k} = cuda.jit((data: Int32Array, bins: Uint32Array) => {
  const local = cuda.shared.array(NBINS, u32);
  const t = cuda.threadIdx.x;
  for (let b = t; b < NBINS; b += cuda.blockDim.x) {
    local[b] = 0;
  }
  cuda.syncthreads();
  const [i] = [cuda.grid(1)].length ? [cuda.grid(1)] : [0];
  for (let j = cuda.grid(1); j < data.length; j += cuda.gridsize(1)) {
    const bin = data[j] & (NBINS - 1);
    cuda.atomic.add(local, bin, 1);
  }
  cuda.syncthreads();
  for (let b = t; b < NBINS; b += cuda.blockDim.x) {
    cuda.atomic.add(bins, b, local[b] + ${k});
  }
});
`.replace("  const [i] = [cuda.grid(1)].length ? [cuda.grid(1)] : [0];\n", "  const first = cuda.grid(1) === 0;\n  if (first) bins[0] = bins[0];\n");
  }
}

function generate() {
  let s = `import { cuda, f32, i32, u32, Array2D } from "cudascript";\n\nconst TPB = 128;\nconst TILE = 16;\nconst NBINS = 64;\n\n`;
  s += `const clamp = cuda.device((v: f32, lo: f32, hi: f32): f32 => Math.min(Math.max(v, lo), hi));\n\n`;
  for (let k = 0; k < KERNELS; k++) s += `/**\n * Kernel ${k} of the generated benchmark file.\n * It is deliberately ordinary code.\n */\n` + kernelSource(k) + "\n";
  return s;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-bench-check-"));
const file = path.join(dir, "kernels.ts");
let text = generate();
fs.writeFileSync(file, text);
const lines = text.split("\n").length;

// --- TypeScript's own language service on the same file ---
const compilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10,
  noEmit: true,
  skipLibCheck: true,
  types: [],
  baseUrl: dir,
  paths: { cudascript: [path.join(root, "runtime/dist/index.d.ts")] },
};
let version = 1;
const host = {
  getScriptFileNames: () => [file],
  getScriptVersion: (f) => (f === file ? String(version) : "1"),
  getScriptSnapshot: (f) => {
    if (f === file) return ts.ScriptSnapshot.fromString(text);
    if (!fs.existsSync(f)) return undefined;
    return ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8"));
  },
  getCurrentDirectory: () => dir,
  getCompilationSettings: () => compilerOptions,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: (f) => f === file || fs.existsSync(f),
  readFile: (f) => (f === file ? text : fs.readFileSync(f, "utf8")),
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());

const now = () => performance.now();
function time(f) {
  const t = now();
  const r = f();
  return [now() - t, r];
}

// Cold: a fresh checker, first check of the file (includes parsing and every kernel).
const checker = new KernelChecker();
const [coldOurs, first] = time(() => checker.checkFile(file));
const [coldTs, tsDiags] = time(() => service.getSemanticDiagnostics(file));
if (first.module.kernels.length !== KERNELS) throw new Error(`expected ${KERNELS} kernels, got ${first.module.kernels.length}`);
if (tsDiags.length) console.warn(`note: TypeScript reports ${tsDiags.length} diagnostics on the generated file: ${ts.flattenDiagnosticMessageText(tsDiags[0].messageText, " ")}`);

// Edits: change one line inside a different kernel each time (the constant in its last statement).
const editable = [];
text.split("\n").forEach((l, i) => {
  if (/\+ \d+;$|\* \d+;$/.test(l)) editable.push(i);
});
const ours = [];
const theirs = [];
for (let e = 0; e < EDITS; e++) {
  const ls = text.split("\n");
  const li = editable[(e * 7) % editable.length];
  ls[li] = ls[li].replace(/(\d+);$/, (_, n) => `${Number(n) + 1};`);
  text = ls.join("\n");
  version++;
  const [a, r] = time(() => {
    checker.setFileText(file, text);
    return checker.checkFile(file);
  });
  const [b] = time(() => service.getSemanticDiagnostics(file));
  if (r.diagnostics.some((d) => d.severity === "error")) throw new Error("the edit introduced an error: " + r.diagnostics[0].message);
  ours.push(a);
  theirs.push(b);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)];
const f = (x) => x.toFixed(1).padStart(8);
console.log(`check.mjs — ${lines}-line file, ${KERNELS} kernels, ${EDITS} one-line edits (node ${process.version})`);
console.log(`                                   CudaScript   TypeScript LS   ratio (ours/TS)`);
console.log(`cold (first check), ms           ${f(coldOurs)}        ${f(coldTs)}        ${(coldOurs / coldTs).toFixed(2)}`);
console.log(`after one-line edit, median ms   ${f(median(ours))}        ${f(median(theirs))}        ${(median(ours) / median(theirs)).toFixed(2)}`);
console.log(`after one-line edit, p95 ms      ${f(p95(ours))}        ${f(p95(theirs))}        ${(p95(ours) / p95(theirs)).toFixed(2)}`);
console.log(`target: re-check median <= 50 ms (${median(ours) <= 50 ? "met" : "NOT met"}) and below TypeScript's own semantic check (${median(ours) < median(theirs) ? "met" : "NOT met"})`);
fs.rmSync(dir, { recursive: true, force: true });
