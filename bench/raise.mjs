// What exceptions cost a kernel that never throws (issue 31 item 2): the same kernels with and without
// a `throw` / `console.assert` whose condition is never true, side by side.
//  - simulator: best-of-5 time of a 1M-element launch, and the ratio;
//  - GPU code (no GPU needed): registers and PTX instructions NVRTC -Xptxas -v reports for sm_80.
// The GPU backend adds one 128-byte copy per synchronization after a launch of a kernel that can raise
// (runtime/src/gpu/kernel-errors.ts); it needs a GPU to time and is not measured here.
// `node bench/raise.mjs [--quick]`. Nothing here asserts.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(join(root, "package.json"));
const quick = process.argv.includes("--quick");

const { KernelChecker, makeArtifact, generateCuda } = require("@cudascript/compiler");
const { cuda, configureSimulator, f32 } = require("cudascript");
const nb = require("./native-bindings/dist/index.js");

const SOURCE = `import { cuda, f32 } from "cudascript";
export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a * x[i] + y[i];
});
export const saxpyThrows = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const v = x[i];
    if (v !== v) throw new Error(\`x[\${i}] is NaN\`);
    out[i] = a * v + y[i];
  }
});
export const saxpyAsserts = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    console.assert(x[i] === x[i], \`x[\${i}] is NaN\`);
    out[i] = a * x[i] + y[i];
  }
});
export const loop = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let s = x[i];
  for (let k = 0; k < 64; k++) s = s * 0.999 + 0.5;
  out[i] = s;
});
export const loopThrows = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let s = x[i];
  for (let k = 0; k < 64; k++) {
    s = s * 0.999 + 0.5;
    if (s > 1e30) throw new RangeError(\`diverged at step \${k}: \${s}\`);
  }
  out[i] = s;
});
`;

const checker = new KernelChecker();
const file = join(root, "bench", "__raise_kernels.ts");
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const errors = check.diagnostics.filter((d) => d.severity === "error");
if (errors.length) throw new Error(errors.map((d) => `${d.code} ${d.message}`).join("\n"));
const artifact = makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
const K = (name) => cuda.jit(null, undefined, artifact, name);

const pairs = [
  ["saxpy", "saxpyThrows", "throw on a NaN input (never)"],
  ["saxpy", "saxpyAsserts", "console.assert(x[i] === x[i]) (always true)"],
  ["loop", "loopThrows", "throw in a 64-step loop (never)"],
];

// ── simulator ──
const n = quick ? 1 << 18 : 1 << 20;
configureSimulator({ workers: 1, inProcessThreshold: 1 << 30, sanitize: false });
const x = cuda.toDevice(Float32Array.from({ length: n }, (_, i) => (i % 1000) / 1000));
const y = cuda.toDevice(new Float32Array(n).fill(1));
const out = cuda.deviceArray(n, f32);
const run = {
  saxpy: (k) => k.launch(Math.ceil(n / 256), 256)(2, x, y, out),
  loop: (k) => k.launch(Math.ceil(n / 256), 256)(x, out),
};
function best(name, family) {
  const k = K(name);
  run[family](k); // compile + warm up
  let b = Infinity;
  for (let r = 0; r < (quick ? 2 : 5); r++) {
    const t0 = process.hrtime.bigint();
    run[family](k);
    cuda.synchronize();
    b = Math.min(b, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return b;
}
console.log(`Simulator, ${n} elements, best of ${quick ? 2 : 5} (ms):`);
console.log(`${"kernel pair".padEnd(52)}${"plain".padStart(9)}${"raising".padStart(9)}${"ratio".padStart(8)}`);
for (const [plain, raising, what] of pairs) {
  const family = plain.startsWith("saxpy") ? "saxpy" : "loop";
  const a = best(plain, family), b = best(raising, family);
  console.log(`${`${plain} vs ${raising}: ${what}`.slice(0, 51).padEnd(52)}${a.toFixed(2).padStart(9)}${b.toFixed(2).padStart(9)}${(b / a).toFixed(2).padStart(8)}`);
}

// ── generated code, sm_80 ──
const load = nb.loadNvrtc();
if (!load.ok) {
  console.log(`\nNVRTC not available (${load.error.message}): the GPU code comparison is skipped.`);
  process.exit(0);
}
const nvrtc = load.nvrtc;
const gen = generateCuda(check.module);
const r = nvrtc.compile({ source: gen.source, name: "raise_bench.cu", options: ["--gpu-architecture=sm_80", "--ptxas-options=-v"] });
if (!r.ok) throw new Error(r.log);
const regs = new Map(nb.parseKernelResources(r.log).map((k) => [k.name, k.registers]));
const inst = {};
let current;
for (const raw of r.ptx.split("\n")) {
  const entry = /\.entry\s+(\w+)/.exec(raw);
  if (entry) current = entry[1];
  const t = raw.trim();
  if (!current || !t.endsWith(";") || t.startsWith(".") || t.startsWith("//") || t.startsWith("$")) continue;
  inst[current] = (inst[current] ?? 0) + 1;
}
const sym = (name) => gen.kernels.find((k) => k.name === name).symbol;
console.log(`\nGenerated code, NVRTC ${nvrtc.info.version.major}.${nvrtc.info.version.minor} sm_80 (registers, PTX instructions; the raise path included):`);
console.log(`${"kernel pair".padEnd(52)}${"regs".padStart(6)}${"regs'".padStart(7)}${"inst".padStart(7)}${"inst'".padStart(7)}${"ratio".padStart(8)}`);
for (const [plain, raising, what] of pairs) {
  const a = sym(plain), b = sym(raising);
  console.log(`${`${plain} vs ${raising}: ${what}`.slice(0, 51).padEnd(52)}${String(regs.get(a)).padStart(6)}${String(regs.get(b)).padStart(7)}${String(inst[a]).padStart(7)}${String(inst[b]).padStart(7)}${(inst[b] / inst[a]).toFixed(2).padStart(8)}`);
}
