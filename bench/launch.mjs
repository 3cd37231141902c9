#!/usr/bin/env node
// GPU launch overhead and copy bandwidth (GPU only; prints "no GPU" and exits 0 otherwise).
//
//   node bench/launch.mjs [--quick] [--device N] [--json]     (build first: npx tsc -b)
//   node bench/launch.mjs --double [--quick] [--double-log]    # against the libcuda TEST DOUBLE:
//       checks the code paths; its numbers are "double" numbers (a fake driver: no GPU, no PCIe), not
//       GPU numbers. The double's call log is off unless --double-log (it formats JSON per call).
//
// Reports
//  - launch overhead per kernel launch, host side, for empty kernels with 1…16 scalar arguments and
//    1…8 array arguments (pointer + length), at four layers: the host API as written
//    (`k.launch(grid, block)(...args)`), a launcher configured once (`const l = k.launch(g, b);
//    l(...args)`), the backend's launch with prepared arguments, and the driver bindings' launch
//    with packed buffers; the per-argument cost is the slope of a least-squares fit;
//  - the device-side time per launch (CUDA events around a batch of launches);
//  - host→device and device→host bandwidth, pageable vs pinned (cuda.pinnedArray), measured with
//    CUDA events on a stream.
//  - the launch fast path (runtime/src/gpu/launch-packer.ts) before/after: per-launch time and bytes
//    allocated per launch through the host API, for 0, 1, 2, 4 scalar and 4, 8 array arguments,
//    with the generic path ("before", the fast path switched off) and the fast path ("after") side
//    by side, beside the driver floor (cuLaunchKernel alone with a prebuilt kernelParams block: on
//    the double, mostly the double's own work) and the anchors of issue 17 (numba-cuda, the C driver
//    API, CUDA.jl — measured on GPUs by their authors).
// Nothing here asserts; it reports.
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
const args = process.argv.slice(2);
const quick = args.includes("--quick");
const useDouble = args.includes("--double");
const asJson = args.includes("--json");
const deviceArg = args.indexOf("--device");
if (deviceArg >= 0) process.env.CUDASCRIPT_DEVICE = args[deviceArg + 1];

if (useDouble) {
  const { buildDriverDouble } = require(path.join(root, "test/dist/driver-double/test-double.js"));
  const built = buildDriverDouble();
  if (!built.ok) {
    console.error(`bench/launch: --double: cannot build the libcuda test double: ${built.reason}`);
    process.exit(1);
  }
  process.env.CUDASCRIPT_LIBCUDA = built.path;
}
// The double formats a JSON entry for every call (its call log, what its tests read): on a launch
// that is most of its own time, more than ours, and the log grows by ~200 bytes per launch. Off by
// default here, so the floor is the FFI call plus the double's checks; --double-log keeps it on.
const doubleLog = args.includes("--double-log");

const { probeCuda } = require("@cudascript/native-bindings/cuda");
const probe = probeCuda();
if (!probe.ok) {
  console.log(`no GPU: bench/launch.mjs measures kernel launches and copies on a GPU, and there is none here.\n  why: ${probe.message.split("\n")[0].replace(/^CSD00\d: /, "")}\n  (--double runs it against the libcuda test double, to check the code paths.)`);
  process.exit(0);
}
const isDouble = probe.driver.info.isTestDouble;
if (isDouble && !doubleLog) {
  const { openDriverDouble } = require(path.join(root, "test/dist/driver-double/test-double.js"));
  openDriverDouble(probe.driver.info.path).setLogging(false);
}
const label = isDouble ? "double" : "GPU";

const { KernelChecker, makeArtifact } = require("@cudascript/compiler");
const { cuda, f32 } = require("cudascript");
const { setBackend } = require(path.join(root, "runtime/dist/host/device.js"));
const { setLaunchFastPath } = require(path.join(root, "runtime/dist/host/kernel.js"));
const { KernelParamBlock } = require("@cudascript/native-bindings/cuda");
const { GpuBackend } = require(path.join(root, "runtime/dist/gpu/backend.js"));

const backend = new GpuBackend({ probe });
setBackend(backend);

// ── kernels: empty bodies (a guard the compiler cannot drop), 1..16 scalars, 1..8 arrays ──
const SCALARS = [0, 1, 2, 4, 8, 16];
const ARRAYS = [1, 2, 4, 8];
const params = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join(", ");
let source = `import { cuda, f32, i32 } from "cudascript";\n`;
for (const n of SCALARS) source += `export const s${n} = cuda.jit((${params(n, (i) => `a${i}: i32`)}) => {});\n`;
for (const n of ARRAYS) source += `export const a${n} = cuda.jit((${params(n, (i) => `x${i}: Float32Array`)}) => { const i = cuda.grid(1); if (i < 0) x0[0] = ${n}; });\n`;
const checker = new KernelChecker();
const file = path.join(root, "bench", "__launch_bench_kernels.ts");
checker.setFileText(file, source);
const check = checker.checkFile(file);
const errors = check.diagnostics.filter((d) => d.severity === "error");
if (errors.length) throw new Error(errors.map((d) => `${d.span.line}:${d.span.col} ${d.code} ${d.message}`).join("\n"));
const artifact = makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
const K = (name) => cuda.jit(null, undefined, artifact, name);

const t0 = performance.now();
backend.loadModule(artifact);
const loadMs = performance.now() - t0;
const loaded = backend.loaded(artifact);

const N = quick ? 2000 : 20000;
const BATCH = 500; // synchronize every BATCH launches so the driver's launch queue never fills

function perLaunchMicros(launchOnce) {
  for (let i = 0; i < 200; i++) launchOnce(); // warm up
  cuda.synchronize();
  let best = Infinity;
  for (let rep = 0; rep < 3; rep++) {
    let t = 0;
    for (let done = 0; done < N; done += BATCH) {
      const s = performance.now();
      for (let i = 0; i < BATCH; i++) launchOnce();
      t += performance.now() - s;
      cuda.synchronize(); // not timed
    }
    best = Math.min(best, (t * 1000) / N);
  }
  return best;
}

function fit(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  const slope = num / den;
  return { slope, intercept: my - slope * mx };
}

const ctx = backend.context();
const rows = [];
function measure(name, count, kind, hostArgs) {
  const k = K(name);
  const lk = loaded.kernels.get(name);
  const module = backend.loadModule(artifact);
  const kernelArgs = hostArgs.map((a) =>
    typeof a === "number" ? { kind: "scalar", dtype: "i32", value: a } : { kind: "array", buffer: a.buffer, byteOffset: 0, dtype: "f32", shape: a.shape },
  );
  const config = { grid: [1, 1, 1], block: [32, 1, 1], sharedMem: 0, stream: null };
  const views = lk.plan.pack(kernelArgs, (a) => a.buffer.pointer).map((v) => new Uint8Array(v)); // own copies
  const configured = k.launch(1, 32);
  const row = {
    kernel: name,
    kind,
    args: count,
    cParams: lk.plan.slots.length,
    hostApi: perLaunchMicros(() => k.launch(1, 32)(...hostArgs)),
    configured: perLaunchMicros(() => configured(...hostArgs)),
    backend: perLaunchMicros(() => backend.launch(module, name, config, kernelArgs)),
    bindings: perLaunchMicros(() => ctx.launch(lk.fn, 1, 32, 0, null, views)),
  };
  // Device side: events around a batch of launches.
  const start = cuda.event();
  const end = cuda.event();
  start.record();
  for (let i = 0; i < BATCH; i++) configured(...hostArgs);
  end.record();
  end.synchronize();
  row.deviceMicros = (cuda.eventElapsedTime(start, end) * 1000) / BATCH;
  rows.push(row);
}

const arrays = Array.from({ length: Math.max(...ARRAYS) }, () => cuda.deviceArray(1024, f32));
for (const n of SCALARS) measure(`s${n}`, n, "scalar", Array.from({ length: n }, (_, i) => i + 1));
for (const n of ARRAYS) measure(`a${n}`, n, "array", arrays.slice(0, n));

// ── the launch fast path, before and after: time and allocations per launch through the host API ──
/**
 * Bytes allocated per call of `f`: the growth of the JS heap over a batch of calls, median of many
 * batches (a batch with a garbage collection in it shrinks the heap and falls out of the median),
 * less the same measurement of an empty function. Measured after `perLaunchMicros` has warmed `f` up.
 */
function bytesPerLaunch(f) {
  const per = 50;
  const sample = (g) => {
    const h0 = process.memoryUsage().heapUsed;
    for (let i = 0; i < per; i++) g();
    return process.memoryUsage().heapUsed - h0;
  };
  const median = (g) => {
    const deltas = [];
    for (let k = 0; k < 41; k++) {
      deltas.push(sample(g));
      if (k % 8 === 7) cuda.synchronize(); // not measured: keeps the driver's launch queue short
    }
    cuda.synchronize();
    return deltas.sort((a, b) => a - b)[deltas.length >> 1];
  };
  return Math.max(0, (median(f) - median(() => {})) / per);
}

const FAST_CASES = [
  ["s0", "0 scalars", 0],
  ["s1", "1 scalar", 1],
  ["s2", "2 scalars", 2],
  ["s4", "4 scalars", 4],
  ["a4", "4 arrays", 4],
  ["a8", "8 arrays", 8],
];
const fastArgsOf = (name, count) => (name.startsWith("s") ? Array.from({ length: count }, (_, i) => i + 1) : arrays.slice(0, count));
// Every case runs both paths before any is measured. Measured without this, the first rows came out
// 30–60 B and ~0.2 µs per launch worse: V8 was still re-optimizing the launcher, which deoptimizes
// when it first takes the path it had not run yet and when it first sees each new kernel's objects.
// A program launching in a loop takes one path, with the same objects, from its first launch.
for (const on of [false, true]) {
  setLaunchFastPath(on);
  for (const [name, , count] of FAST_CASES) {
    const launch = K(name).launch(1, 32);
    const hostArgs = fastArgsOf(name, count);
    for (let i = 0; i < 4000; i++) launch(...hostArgs);
    cuda.synchronize();
  }
}
const fastPath = [];
for (const [name, label, count] of FAST_CASES) {
  const k = K(name);
  const lk = loaded.kernels.get(name);
  const hostArgs = fastArgsOf(name, count);
  // The floor: cuLaunchKernel alone, with the arguments already packed in a prebuilt kernelParams block.
  const sizes = lk.plan.slots.map((x) => x.size);
  const block = new KernelParamBlock(sizes);
  const packed = lk.plan.pack(
    hostArgs.map((a) => (typeof a === "number" ? { kind: "scalar", dtype: "i32", value: a } : { kind: "array", buffer: a.buffer, byteOffset: 0, dtype: "f32", shape: a.shape, strides: a.elementStrides })),
    (a) => a.buffer.pointer,
  );
  packed.forEach((v, i) => new Uint8Array(block.view.buffer, block.offsets[i], v.byteLength).set(v));
  const api = ctx.driver.api;
  const floorCall = () => api.cuLaunchKernel(lk.fn.handle, 1, 1, 1, 32, 1, 1, 0, null, block.address, null);
  const hostApi = () => k.launch(1, 32)(...hostArgs);
  const row = { kernel: name, label, args: count, floor: perLaunchMicros(floorCall) };
  setLaunchFastPath(false);
  try {
    row.before = perLaunchMicros(hostApi);
    row.beforeBytes = bytesPerLaunch(hostApi);
  } finally {
    setLaunchFastPath(true);
  }
  row.after = perLaunchMicros(hostApi);
  row.afterBytes = bytesPerLaunch(hostApi);
  fastPath.push(row);
}
const ANCHORS = { s0: "numba-cuda 6.6", s1: "numba-cuda 10.6", s2: "numba-cuda 14.1" };

const slope = (kind, col) => {
  const r = rows.filter((x) => x.kind === kind);
  return fit(
    r.map((x) => x.args),
    r.map((x) => x[col]),
  );
};
const perArg = {};
for (const col of ["hostApi", "configured", "backend", "bindings"]) perArg[col] = { scalar: slope("scalar", col), array: slope("array", col) };

// ── bandwidth: pageable vs pinned, HtoD and DtoH, timed with events on a stream ──
const SIZES_MB = quick ? [1, 4] : [1, 16, 64];
const stream = cuda.stream();
const bandwidth = [];
for (const mb of SIZES_MB) {
  const n = (mb * 1024 * 1024) / 4;
  const dev = cuda.deviceArray(n, f32);
  const hosts = { pageable: new Float32Array(n), pinned: cuda.pinnedArray(n, f32) };
  for (const [memory, host] of Object.entries(hosts)) {
    for (const dir of ["HtoD", "DtoH"]) {
      const copy = () => (dir === "HtoD" ? dev.copyToDevice(host, stream) : dev.copyToHost(host, stream));
      copy(); // warm up
      stream.synchronize();
      let bestEvent = Infinity;
      let bestWall = Infinity;
      for (let rep = 0; rep < (quick ? 3 : 8); rep++) {
        const start = cuda.event();
        const end = cuda.event();
        const w0 = performance.now();
        start.record(stream);
        copy();
        end.record(stream);
        end.synchronize();
        bestWall = Math.min(bestWall, performance.now() - w0);
        bestEvent = Math.min(bestEvent, cuda.eventElapsedTime(start, end));
      }
      const gbps = (ms) => (ms > 0 ? (mb * 1024 * 1024) / (ms / 1000) / 1e9 : Infinity);
      bandwidth.push({ mb, memory, dir, eventMs: bestEvent, eventGBps: gbps(bestEvent), wallMs: bestWall, wallGBps: gbps(bestWall) });
    }
  }
  dev.free();
}
for (const a of arrays) a.free();

const result = {
  label,
  device: backend.description,
  driver: `${probe.driverVersion.major}.${probe.driverVersion.minor}`,
  ptxTarget: loaded.compiled.target,
  moduleLoadMs: loadMs,
  launches: rows,
  perArgument: perArg,
  fastPath,
  bandwidth,
};

if (asJson) {
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}

const f = (x, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "—");
console.log(`Launch overhead and bandwidth on ${backend.description}, driver CUDA ${result.driver}${isDouble ? "  — DOUBLE NUMBERS: the libcuda test double, not a GPU" : ""}`);
console.log(`kernels: ${result.ptxTarget} PTX, compiled and loaded in ${f(loadMs, 1)} ms; ${N} launches per measurement, best of 3`);
console.log("");
console.log(`Host time per launch (µs, ${label}):`);
console.log("kernel  args  C params  host API k.launch(g,b)(…)  configured l(…)  backend.launch  bindings ctx.launch  device (events)");
for (const r of rows)
  console.log(
    `${r.kernel.padEnd(6)}  ${String(r.args).padStart(4)}  ${String(r.cParams).padStart(8)}  ${f(r.hostApi).padStart(24)}  ${f(r.configured).padStart(15)}  ${f(r.backend).padStart(14)}  ${f(r.bindings).padStart(19)}  ${f(r.deviceMicros).padStart(15)}`,
  );
console.log("");
console.log(`Per argument (least-squares slope, µs per argument; intercept = cost of a launch, ${label}):`);
for (const [col, name] of [["hostApi", "host API"], ["configured", "configured launcher"], ["backend", "backend.launch"], ["bindings", "bindings"]]) {
  const s = perArg[col];
  console.log(`  ${name.padEnd(20)} scalar ${f(s.scalar.slope, 3)} µs/arg (+${f(s.scalar.intercept)})   array ${f(s.array.slope, 3)} µs/arg (+${f(s.array.intercept)})`);
}
console.log("");
console.log(`Launch fast path, host API k.launch(g, b)(…), before (generic path) and after (fast path) (${label}${isDouble ? ": the libcuda test double, not a GPU" : ""}):`);
console.log("args       driver floor µs   before µs  before B/launch   after µs  after B/launch   after − floor µs   anchor µs/launch (on GPUs)");
for (const r of fastPath)
  console.log(
    `${r.label.padEnd(9)}  ${f(r.floor).padStart(15)}  ${f(r.before).padStart(10)}  ${f(r.beforeBytes, 0).padStart(15)}  ${f(r.after).padStart(9)}  ${f(r.afterBytes, 0).padStart(14)}  ${f(r.after - r.floor).padStart(17)}   ${ANCHORS[r.kernel] ?? ""}`,
  );
console.log(
  "  driver floor: cuLaunchKernel alone with a prebuilt kernelParams block" +
    (isDouble ? (doubleLog ? " — on the double with its JSON call log on (--double-log): mostly the double's own formatting, not ours." : " — on the double with its call log off: koffi's call and the double's checks (--double-log adds its JSON formatting).") : "."),
);
console.log("  anchors (issue 17, measured on GPUs): numba-cuda 6.6 / 10.6 / 14.1 µs for 0 / 1 / 2 args (numba-cuda PR #288), C driver API ~4.9 µs, CUDA.jl 1.65 µs (CUDA.jl PR #3237).");
console.log("  targets (issue 17, host side against the double): ≤ 1 µs per launch up to 4 arguments, ≤ 2 µs with 8 array arguments.");
console.log("");
console.log(`Copy bandwidth (best of ${quick ? 3 : 8}; GB/s from CUDA events on a stream, wall clock in parentheses, ${label}):`);
console.log("size     memory    HtoD                      DtoH");
for (const mb of SIZES_MB) {
  for (const memory of ["pageable", "pinned"]) {
    const cell = (dir) => {
      const b = bandwidth.find((x) => x.mb === mb && x.memory === memory && x.dir === dir);
      return `${f(b.eventGBps)} GB/s (${f(b.wallGBps)})`.padEnd(26);
    };
    console.log(`${`${mb} MiB`.padEnd(8)} ${memory.padEnd(9)} ${cell("HtoD")}${cell("DtoH")}`);
  }
}
if (isDouble) console.log("\n(double: events read the double's virtual clock, which only launches advance, so copy times from events are 0 and their GB/s is shown as —.)");
backend.dispose();
