#!/usr/bin/env node
/**
 * The real-GPU suite (`npm run test:gpu`): every case of every valid corpus kernel
 * (test/corpus/valid/NAME.ts with its NAME.ref.ts cases, from the compiled test/dist) runs on the GPU
 * through the public host API and is compared with the simulator's result for the same inputs —
 * exactly for integer outputs, within the case's tolerance for floats. PTX JIT errors are printed
 * with the JIT log; GPU kernel time comes from CUDA events recorded around each launch.
 *
 * Every example (examples/*.ts with kernels) is compiled and loaded the same way and, on a real GPU,
 * run as a program (`cudascript run --backend gpu`), which must pass its own bit-exact check against
 * plain TypeScript. For every file, the PTX is audited: no kernel that neither opts into contraction
 * (`fma: true`, `fastmath: true`) nor calls `cuda.fma` may contain a `fma.rn` (docs/gpu.md).
 *
 * Without a GPU it prints why and exits 0 (skipped). Each corpus file runs in a child process of its
 * own, so that a kernel fault (a sticky CUDA error that ends the process's CUDA context) fails that
 * file only.
 *
 *   node test/gpu/run-gpu-suite.mjs [--filter NAME] [--device N] [--no-build] [--verbose]
 *   node test/gpu/run-gpu-suite.mjs --double    # against the libcuda TEST DOUBLE (no GPU): checks
 *       everything up to the comparison; the double runs no kernels, so its outputs are the inputs
 *       as uploaded, and that is what is compared (a copy round trip), not the simulator's result
 *       (--double --compare-simulator compares with the simulator anyway: every output a kernel
 *       writes then mismatches, which shows the mismatch report).
 *
 * Exit code: 0 all cases agree (or no GPU: skipped), 1 a mismatch or an error, 2 usage errors.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..", "..");
const require = createRequire(import.meta.url);
const VALID = path.join(REPO, "test", "corpus", "valid");
const EXAMPLES = path.join(REPO, "examples");
const CHILD_TIMEOUT_MS = Number(process.env.CUDASCRIPT_GPU_SUITE_TIMEOUT_MS ?? 600_000);

const USAGE = `Usage: node test/gpu/run-gpu-suite.mjs [--filter NAME] [--device N] [--double] [--no-build] [--verbose]`;

function parse(argv) {
  const o = { filter: undefined, device: undefined, double: false, build: true, verbose: false, child: undefined, compareSimulator: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--double") o.double = true;
    else if (a === "--no-build") o.build = false;
    else if (a === "--compare-simulator") o.compareSimulator = true;
    else if (a === "--verbose" || a === "-v") o.verbose = true;
    else if (a === "--filter") o.filter = argv[++i];
    else if (a === "--device") o.device = argv[++i];
    else if (a === "--child") o.child = argv[++i];
    else if (a === "--help" || a === "-h") {
      console.log(USAGE);
      process.exit(0);
    } else {
      console.error(`run-gpu-suite: unknown argument '${a}'\n${USAGE}`);
      process.exit(2);
    }
  }
  if (o.device !== undefined && !/^\d+$/.test(o.device)) {
    console.error(`run-gpu-suite: --device takes a device number, not '${o.device}'`);
    process.exit(2);
  }
  return o;
}

const opts = parse(process.argv.slice(2));
if (opts.child) await runChild(opts.child);
else process.exitCode = await runParent();

// ───────────────────────── parent ─────────────────────────

async function runParent() {
  if (opts.build) {
    const tsc = path.join(REPO, "node_modules", "typescript", "bin", "tsc");
    const r = spawnSync(process.execPath, [tsc, "-b"], { cwd: REPO, stdio: "inherit" });
    if (r.status !== 0) {
      console.error("run-gpu-suite: the build (tsc -b) failed");
      return 1;
    }
  }
  for (const need of ["runtime/dist/gpu/backend.js", "test/dist/corpus/case.js", "native-bindings/dist/cuda/index.js"]) {
    if (!fs.existsSync(path.join(REPO, need))) {
      console.error(`run-gpu-suite: ${need} is missing: build first (npx tsc -b)`);
      return 1;
    }
  }
  if (opts.double) {
    const { buildDriverDouble } = require(path.join(REPO, "test", "dist", "driver-double", "test-double.js"));
    const built = buildDriverDouble();
    if (!built.ok) {
      console.error(`run-gpu-suite: --double: the libcuda test double cannot be built: ${built.reason}`);
      return 1;
    }
    process.env.CUDASCRIPT_LIBCUDA = built.path;
  }
  const cu = require(path.join(REPO, "native-bindings", "dist", "cuda", "index.js"));
  const files = fs
    .readdirSync(VALID)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".ref.ts"))
    .sort()
    .concat(exampleFiles())
    .filter((f) => !opts.filter || f.includes(opts.filter));
  const probe = cu.probeCuda();
  if (!probe.ok) {
    const why = probe.message.split("\n")[0].replace(/^CSD00\d: /, "");
    console.log(`no GPU: skipping the real-GPU suite (${files.length} corpus files and examples would run on the GPU and be compared with the simulator).`);
    console.log(`  why: ${why}`);
    console.log("  Run it on a machine with an NVIDIA GPU and its driver ('npx cudascript doctor' shows what is missing), or with --double to check it against the libcuda test double.");
    return 0;
  }
  const device = Number(opts.device ?? process.env.CUDASCRIPT_DEVICE ?? 0);
  const d = probe.devices[device];
  if (!d) {
    console.error(`run-gpu-suite: device ${device} does not exist (${probe.devices.length} found)`);
    return 2;
  }
  const nb = require(path.join(REPO, "native-bindings", "dist", "index.js"));
  const nvrtc = nb.loadNvrtc();
  if (!nvrtc.ok) {
    console.error(`run-gpu-suite: a GPU is present but NVRTC is not, so kernels cannot be compiled for it.\n${nvrtc.error.message}`);
    return 1;
  }
  const v = probe.driverVersion;
  const nv = nvrtc.nvrtc.info.version;
  console.log(
    `Real-GPU suite: ${files.length} corpus files and examples on GPU ${device}: ${d.name} (${d.arch}, ${(d.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB), ` +
      `driver CUDA ${v.major}.${v.minor}, NVRTC ${nv.major}.${nv.minor}${probe.driver.info.isTestDouble ? ` — the libcuda TEST DOUBLE: kernels do not run${opts.compareSimulator ? "" : ", outputs are compared with the uploaded inputs"}` : ""}`,
  );
  console.log("");
  const results = [];
  for (const f of files) {
    const r = await runFileInChild(f, device);
    results.push(r);
    printFile(r);
  }
  return summary(results, probe.driver.info.isTestDouble && !opts.compareSimulator);
}

/** Examples with kernels, as "examples/NAME.ts". */
function exampleFiles() {
  return fs
    .readdirSync(EXAMPLES)
    .filter((f) => f.endsWith(".ts") && /cuda\.jit\(/.test(fs.readFileSync(path.join(EXAMPLES, f), "utf8")))
    .sort()
    .map((f) => `examples/${f}`);
}

function runFileInChild(file, device) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url), "--child", file, ...(opts.double ? ["--double"] : []), ...(opts.compareSimulator ? ["--compare-simulator"] : [])], {
      cwd: REPO,
      env: { ...process.env, CUDASCRIPT_DEVICE: String(device), CUDASCRIPT_BACKEND: "gpu" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (b) => (out += b));
    child.stderr.on("data", (b) => (err += b));
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = out.split("\n").find((l) => l.startsWith("RESULT "));
      if (line) {
        const r = JSON.parse(line.slice(7));
        r.stderr = err;
        r.otherOutput = out.split("\n").filter((l) => !l.startsWith("RESULT ")).join("\n").trim();
        resolve(r);
      } else
        resolve({
          file,
          error: signal === "SIGKILL" ? `timed out after ${CHILD_TIMEOUT_MS / 1000} s (a kernel that never ends?)` : `the child process exited with ${code ?? signal} without a result`,
          cases: [],
          stderr: err,
          otherOutput: out.trim(),
        });
    });
  });
}

function ms(x) {
  return x === undefined ? "—" : x < 1 ? `${(x * 1000).toFixed(0)} µs` : `${x.toFixed(2)} ms`;
}

function printFile(r) {
  const ok = !r.error && r.cases.every((c) => c.status === "ok");
  const fusion = r.compile?.unexpectedFma ? (r.compile.unexpectedFma.length ? ", UNEXPECTED FMA CONTRACTION" : ", no FMA contraction") : "";
  console.log(`${ok ? "ok  " : "FAIL"} ${r.file}${r.compile ? `  (PTX ${r.compile.target} from ${r.compile.source}, load ${ms(r.compile.loadMillis)}${fusion})` : ""}`);
  if (r.error) console.log(indent(r.error, "       "));
  if (r.note) console.log(indent(r.note, "       "));
  for (const c of r.cases) {
    const t = c.gpuMillis !== undefined ? `GPU ${ms(c.gpuMillis)} (events; ${c.launches} launch${c.launches === 1 ? "" : "es"}), simulator ${ms(c.simMillis)}` : "";
    if (c.status === "ok") {
      console.log(`       ok   ${c.name}${t ? `  — ${t}` : ""}${c.maxDiff ? `, max |Δ| ${c.maxDiff.toExponential(2)}` : ""}`);
    } else {
      console.log(`       ${c.status === "mismatch" ? "DIFF" : "ERR "} ${c.name}${t ? `  — ${t}` : ""}`);
      console.log(indent(c.detail, "            "));
    }
  }
  if ((!ok || opts.verbose) && r.stderr?.trim()) console.log(indent(`stderr:\n${r.stderr.trim()}`, "       "));
  if (opts.verbose && r.otherOutput) console.log(indent(`output:\n${r.otherOutput}`, "       "));
}

function indent(text, pad) {
  return String(text)
    .split("\n")
    .map((l) => pad + l)
    .join("\n");
}

function summary(results, isDouble) {
  const cases = results.flatMap((r) => r.cases);
  const failedFiles = results.filter((r) => r.error);
  const mism = cases.filter((c) => c.status === "mismatch");
  const errs = cases.filter((c) => c.status === "error");
  const gpu = cases.reduce((s, c) => s + (c.gpuMillis ?? 0), 0);
  const sim = cases.reduce((s, c) => s + (c.simMillis ?? 0), 0);
  console.log("");
  console.log(
    `${cases.length - mism.length - errs.length}/${cases.length} cases agree${isDouble ? " (double: copies round-trip, launches issued; kernels not run)" : " with the simulator"}; ` +
      `${mism.length} mismatched, ${errs.length} errors, ${failedFiles.length} files failed to run. ` +
      `Kernel time: GPU ${ms(gpu)} (events${isDouble ? ", the double's virtual clock" : ""}), simulator ${ms(sim)}.`,
  );
  return mism.length || errs.length || failedFiles.length ? 1 : 0;
}

// ───────────────────────── child: one corpus file ─────────────────────────

async function runChild(file) {
  const result = { file, cases: [] };
  let sim, gpu;
  try {
    const { compileFile, kernel } = require(path.join(REPO, "test", "dist", "simulator", "helpers.js"));
    const { cuda, Complex64Array, Complex128Array, isFloat16Array } = require(path.join(REPO, "runtime", "dist", "index.js"));
    // A flat typed array, f16 included (the Float16Array polyfill of Node 20/22 is not an ArrayBuffer view).
    const isTypedData = (v) => ArrayBuffer.isView(v) || isFloat16Array(v);
    const { useBackend } = require(path.join(REPO, "runtime", "dist", "host", "device.js"));
    const { GpuBackend } = require(path.join(REPO, "runtime", "dist", "gpu", "backend.js"));
    const { SimulatorBackend } = require(path.join(REPO, "runtime", "dist", "simulator", "backend.js"));
    const { unexpectedContractions } = require(path.join(REPO, "compiler", "dist", "index.js"));
    const isExample = file.startsWith("examples/");
    const artifact = compileFile(isExample ? path.join(REPO, file) : path.join(VALID, file));
    const { cases } = isExample ? { cases: [] } : require(path.join(REPO, "test", "dist", "corpus", "valid", file.replace(/\.ts$/, ".ref.js")));
    gpu = new GpuBackend({ cache: true });
    sim = new SimulatorBackend("simulator");
    // With the double no kernel runs: compare with the uploaded inputs, unless --compare-simulator
    // (which then shows what a mismatch report looks like).
    const isDouble = gpu.driver.info.isTestDouble && !opts.compareSimulator;
    let double;
    if (gpu.driver.info.isTestDouble) {
      const { openDriverDouble } = require(path.join(REPO, "test", "dist", "driver-double", "test-double.js"));
      double = openDriverDouble(process.env.CUDASCRIPT_LIBCUDA);
    }

    // Compile and load once, up front: a PTX JIT error is reported with its log, for the whole file.
    useBackend(gpu);
    const t0 = performance.now();
    gpu.loadModule(artifact);
    const loaded = gpu.loaded(artifact);
    result.compile = { target: loaded.compiled.target, source: loaded.compiled.source, loadMillis: performance.now() - t0, jitInfo: loaded.jitInfo.join("\n") };
    // Every backend rounds a * b + c twice unless the kernel opts into contraction: audit the PTX.
    const unexpected = unexpectedContractions(artifact.ir, loaded.compiled.modules, (k) => loaded.compiled.kernels.get(k).symbol);
    result.compile.unexpectedFma = unexpected.map((u) => `${u.kernel} (${u.fmas} fma.rn)`);
    if (unexpected.length) result.error = `FMA contraction in kernels that do not opt into it (fma: true / fastmath: true) nor call cuda.fma: ${result.compile.unexpectedFma.join(", ")}`;
    if (isExample) runExample(file, isDouble, result);

    const toDevice = (v) => {
      if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return v;
      if (isTypedData(v)) return cuda.toDevice(v);
      // A complex corpus array (test/corpus/case.ts complexArray): interleaved parts.
      if (v.complex) return cuda.toDevice(v.complex === "c64" ? Complex64Array.wrap(v.data) : Complex128Array.wrap(v.data));
      // An F-order or strided case array keeps its layout (element strides; the host API takes bytes).
      return cuda.toDevice(cuda.ndarray(v.data, v.shape, v.strides ? { strides: v.strides.map((e) => e * v.data.BYTES_PER_ELEMENT) } : undefined));
    };
    const hostData = (v) => (isTypedData(v) ? v : v.data);

    /** Runs one case on the current backend; returns the outputs named by the reference, and timings. */
    const runCase = (c, onGpu) => {
      const buffers = c.setup();
      const device = {};
      for (const [k, v] of Object.entries(buffers)) device[k] = toDevice(v);
      let eventMillis = 0;
      const wall0 = performance.now();
      for (const l of c.launches) {
        const k = kernel(artifact, l.kernel);
        const args = l.args.map((a) => device[a]);
        if (onGpu) {
          const start = cuda.event();
          const end = cuda.event();
          start.record();
          k.launch(l.grid, l.block, { sharedMem: l.sharedMem })(...args);
          end.record();
          end.synchronize();
          eventMillis += cuda.eventElapsedTime(start, end);
        } else k.launch(l.grid, l.block, { sharedMem: l.sharedMem })(...args);
      }
      cuda.synchronize();
      const wall = performance.now() - wall0;
      const outputs = {};
      for (const name of Object.keys(c.reference(c.setup()))) {
        const got = device[name].copyToHost();
        outputs[name] = isTypedData(got) ? got : got.data;
      }
      for (const v of Object.values(device)) if (v && typeof v === "object" && typeof v.free === "function") v.free();
      return { outputs, eventMillis, wall, inputs: buffers };
    };

    for (const c of cases) {
      const entry = { name: c.name, launches: c.launches.length };
      result.cases.push(entry);
      try {
        useBackend(sim);
        const s = runCase(c, false);
        entry.simMillis = s.wall;
        useBackend(gpu);
        // Kernels that call g.sync() launch through cuLaunchCooperativeKernel (docs/kernel-language.md#grid-synchronisation).
        const launchCalls = () => double.callCount("cuLaunchKernel") + double.callCount("cuLaunchCooperativeKernel");
        const launchesBefore = double ? launchCalls() : undefined;
        const g = runCase(c, true);
        entry.gpuMillis = g.eventMillis;
        entry.gpuWallMillis = g.wall;
        if (double && launchCalls() - launchesBefore !== c.launches.length)
          throw new Error(`expected ${c.launches.length} kernel launches, the double saw ${launchCalls() - launchesBefore}`);
        // What the GPU result must equal: the simulator's; with the double (no kernel runs), the inputs as uploaded.
        const want = isDouble ? Object.fromEntries(Object.keys(g.outputs).map((k) => [k, hostData(s.inputs[k])])) : s.outputs;
        const problems = [];
        let maxDiff = 0;
        for (const [name, got] of Object.entries(g.outputs)) {
          const cmp = compare(name, got, want[name], isDouble ? undefined : c.tolerance);
          maxDiff = Math.max(maxDiff, cmp.maxDiff);
          if (cmp.problem) problems.push(cmp.problem);
        }
        entry.maxDiff = maxDiff;
        if (problems.length) {
          entry.status = "mismatch";
          entry.detail = `GPU ≠ ${isDouble ? "uploaded inputs" : "simulator"}:\n${problems.join("\n")}`;
        } else entry.status = "ok";
      } catch (e) {
        entry.status = "error";
        entry.detail = describeError(e);
        if (e && e.cuda && e.cuda.contextUsable === false) {
          result.error = `the CUDA context was lost (${e.cuda.code}); the remaining cases of ${file} were not run`;
          break;
        }
      }
    }
  } catch (e) {
    result.error = describeError(e);
  } finally {
    try {
      sim?.dispose();
      gpu?.dispose();
    } catch {
      // teardown must not hide the result
    }
  }
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`, () => process.exit(0));
}

/** An example is a program with its own bit-exact check: on a GPU it must exit 0; the double runs no kernels. */
function runExample(file, isDouble, result) {
  if (isDouble) {
    result.note = "not run as a program on the double (its kernels would not execute)";
    return;
  }
  const entry = { name: "runs on the GPU and passes its own check against plain TypeScript", launches: 0 };
  result.cases.push(entry);
  const t0 = performance.now();
  const run = spawnSync(process.execPath, [path.join(REPO, "runtime", "bin", "cudascript.js"), "run", file, "--backend", "gpu"], { cwd: REPO, encoding: "utf8", timeout: CHILD_TIMEOUT_MS });
  entry.gpuWallMillis = performance.now() - t0;
  entry.status = run.status === 0 ? "ok" : "mismatch";
  if (run.status !== 0) entry.detail = `exit ${run.status ?? run.signal}:\n${(run.stdout + run.stderr).trim()}`;
}

function describeError(e) {
  if (e && e.name === "CudaScriptError") return e.message; // CSR041 carries the PTX JIT log
  return e && e.stack ? e.stack : String(e);
}

/** Exact for integer arrays; |a - b| <= abs + rel·|b| for floats with a tolerance; NaN equals NaN. */
function compare(name, got, want, tol) {
  if (!want) return { maxDiff: 0, problem: `${name}: no expected values` };
  if (got.length !== want.length) return { maxDiff: Infinity, problem: `${name}: ${got.length} elements, expected ${want.length}` };
  const isFloat = got instanceof Float32Array || got instanceof Float64Array || got.constructor?.name === "Float16Array";
  let maxDiff = 0;
  let bad = 0;
  const samples = [];
  for (let i = 0; i < want.length; i++) {
    const a = got[i];
    const b = want[i];
    if (!isFloat) {
      // Integers, bigints (i64/u64) included: exact.
      if (a !== b && bad++ < 5) samples.push(`[${i}] = ${a}, expected ${b}`);
      continue;
    }
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    const diff = Math.abs(a - b);
    if (isFloat && Number.isFinite(diff)) maxDiff = Math.max(maxDiff, diff);
    const ok = isFloat && tol ? diff <= tol.abs + tol.rel * Math.abs(b) || a === b : Object.is(a, b) || a === b;
    if (!ok) {
      bad++;
      if (samples.length < 5) samples.push(`[${i}] = ${a}, expected ${b}`);
    }
  }
  return bad ? { maxDiff, problem: `${name}: ${bad} of ${want.length} elements differ${tol && isFloat ? ` (tolerance ${tol.abs} + ${tol.rel}·|expected|)` : " (exact)"}: ${samples.join("; ")}` } : { maxDiff };
}
