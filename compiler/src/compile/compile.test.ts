import { test } from "node:test";
import assert from "node:assert/strict";
import { nvrtcOrSkip, ptxasOrSkip } from "../../../test/dist/support/toolchain-or-skip";
import { assemblePtx } from "@cudascript/native-bindings";
import { ptxFiles } from "@cudascript/native-bindings/ptx-files";
import { checkKernel, checkSources, VIRTUAL_ROOT } from "../../../test/dist/support/check-sources";
import type { IrModule } from "../ir/nodes";
import { compileModule, compileModuleSync, nvrtcOptionsFor, parseComputeCapability } from "./compile";
import { kernelsAllowedToFuse, unexpectedContractions } from "./contraction";

function moduleOf(body: string): IrModule {
  const r = checkKernel(body);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  return r.module;
}

const SAXPY = `export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = a * x[i] + y[i];
  }
});`;

test("options map to NVRTC flags", () => {
  assert.deepEqual(nvrtcOptionsFor("compute_80", {}, false), ["--gpu-architecture=compute_80", "--fmad=false"]);
  assert.deepEqual(nvrtcOptionsFor("compute_80", { fma: true }, false), ["--gpu-architecture=compute_80", "--fmad=true"]);
  assert.deepEqual(nvrtcOptionsFor("sm_90", { fastmath: true, maxRegisters: 32, lineinfo: true, debug: true }, true), [
    "--gpu-architecture=sm_90",
    "--use_fast_math",
    "--maxrregcount=32",
    "--generate-line-info",
    "--device-debug",
    "--ptxas-options=-v",
  ]);
  assert.equal(parseComputeCapability("sm_80"), 80);
  assert.equal(parseComputeCapability("compute_90"), 90);
  assert.equal(parseComputeCapability("86"), 86);
  assert.equal(parseComputeCapability("sm_9x"), undefined);
});

test("a * b + c is not contracted into fma.rn unless the kernel opts in (fma or fastmath) or calls cuda.fma", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const ptxOf = (options: string, body = "out[i] = a * x[i] + y[i];") =>
    compileModuleSync(
      moduleOf(`export const k = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) { ${body} }
}${options});`),
      { cache: false },
    ).ptx!;
  assert.doesNotMatch(ptxOf(""), /\bfma\.rn\./, "default: each f32 operation rounded on its own, as in TypeScript");
  assert.match(ptxOf(", { fma: true }"), /\bfma\.rn\.f32/);
  assert.match(ptxOf(", { fastmath: true }"), /\bfma\.rn\.(ftz\.)?f32/);
  assert.match(ptxOf("", "out[i] = cuda.fma(a, x[i], y[i]);"), /\bfma\.rn\.f32/, "cuda.fma stays a fused multiply-add");
});

test("the contraction audit flags fma.rn in kernels that do not opt in, and only there", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const kernels = (opt: string) => `export const plain = cuda.jit((a: f32, x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) { x[i] = a * x[i] + 1; } }${opt});
const twice = cuda.device((a: f32, b: f32, c: f32): f32 => cuda.fma(a, b, c));
export const explicit = cuda.jit((a: f32, x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) { x[i] = twice(a, x[i], 1); } });
export const expo = cuda.jit((x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) { x[i] = Math.exp(x[i]); } });`;
  const plainModule = moduleOf(kernels(""));
  assert.deepEqual([...kernelsAllowedToFuse(plainModule)].sort(), ["explicit", "expo"], "cuda.fma through a device function; libdevice's expf");
  const ok = compileModuleSync(plainModule, { cache: false });
  assert.deepEqual(unexpectedContractions(plainModule, ok.modules.map((m) => ({ ptx: m.ptx! })), (k) => k), []);
  // The PTX of the same kernel compiled with contraction, audited as if it had not opted in: flagged.
  const fused = compileModuleSync(moduleOf(kernels(", { fma: true }")), { cache: false });
  const leaked = unexpectedContractions(plainModule, fused.modules.map((m) => ({ ptx: m.ptx! })), (k) => k);
  assert.deepEqual(leaked.map((l) => l.kernel), ["plain"]);
});

test("without NVRTC: ok false, nvrtcUnavailable with install advice, the CUDA C++ still produced, no throw", async () => {
  const m = moduleOf(SAXPY);
  const r = await compileModule(m, { nvrtcPath: "/nonexistent/libnvrtc.so.99", cache: false });
  assert.equal(r.ok, false);
  assert.equal(r.nvrtcUnavailable?.code, "CSN001");
  assert.match(r.nvrtcUnavailable!.message, /Install NVRTC/);
  assert.match(r.cuda.source, /extern "C" __global__ void saxpy/);
  assert.equal(r.ptx, undefined);
  assert.deepEqual(r.diagnostics, []);
});

test("async and sync compiles give the same PTX; resources name each kernel", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const m = moduleOf(SAXPY);
  const a = await compileModule(m, { cache: false, resources: true });
  const s = compileModuleSync(m, { cache: false, resources: true });
  assert.ok(a.ok, a.diagnostics.map((d) => d.message).join("\n"));
  assert.equal(a.ptx, s.ptx);
  assert.match(a.ptx!, /\.visible \.entry saxpy\(/);
  assert.equal(a.modules.length, 1);
  assert.deepEqual(a.modules[0]!.nvrtcOptions, ["--gpu-architecture=sm_80", "--fmad=false", "--ptxas-options=-v"]);
  const res = a.resources.get("saxpy");
  assert.ok(res && res.registers > 0 && res.registers <= 16, JSON.stringify(res));
  assert.equal(res.spillStores, 0);
  assert.ok(a.millis.nvrtc > 0 && a.millis.total >= a.millis.nvrtc);
  assert.match(a.nvrtcVersion!, /^\d+\.\d+$/);
});

test("cubin on request (real arch); PTX for compute_XX otherwise", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const m = moduleOf(SAXPY);
  const plain = await compileModule(m, { cache: false, arch: "compute_80" });
  assert.deepEqual(plain.modules[0]!.nvrtcOptions, ["--gpu-architecture=compute_80", "--fmad=false"]);
  assert.equal(plain.cubin, undefined);
  const withCubin = await compileModule(m, { cache: false, emit: ["ptx", "cubin"] });
  assert.ok(withCubin.cubin && withCubin.cubin.length > 100);
  assert.deepEqual([...withCubin.cubin.subarray(0, 4)], [0x7f, 0x45, 0x4c, 0x46], "an ELF file");
});

test("kernels with different options are compiled as separate programs", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const m = moduleOf(`${SAXPY}
export const fast = cuda.jit((x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) { x[i] = Math.exp(x[i]) / Math.sqrt(x[i]); } }, { fastmath: true });
export const capped = cuda.jit((x: Float32Array) => { const i = cuda.grid(1); if (i < x.length) { x[i] = Math.sin(x[i]); } }, { maxRegisters: 24 });`);
  const r = await compileModule(m, { cache: false, resources: true });
  assert.ok(r.ok, r.diagnostics.map((d) => d.message).join("\n"));
  assert.deepEqual(
    r.modules.map((x) => [x.kernels, x.nvrtcOptions.slice(1)]),
    [
      [["saxpy"], ["--fmad=false", "--ptxas-options=-v"]],
      [["fast"], ["--use_fast_math", "--ptxas-options=-v"]],
      [["capped"], ["--fmad=false", "--maxrregcount=24", "--ptxas-options=-v"]],
    ],
  );
  assert.match(r.modules[1]!.ptx!, /ex2\.approx\.ftz\.f32/, "fast math in the fastmath kernel");
  assert.doesNotMatch(r.modules[1]!.ptx!, /\.entry saxpy/);
  assert.ok(r.resources.get("capped")!.registers <= 24);
  assert.equal(r.resources.size, 3);
});

test("lineinfo: the PTX .loc directives point at TypeScript lines", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const m = moduleOf(SAXPY.replace(/\}\);$/, "}, { lineinfo: true });"));
  const r = await compileModule(m, { cache: false });
  assert.ok(r.ok);
  const file = /\.file\s+(\d+)\s+"([^"]+)"/.exec(r.ptx!);
  assert.ok(file, "a .file directive");
  assert.match(file[2]!, /k\.ts$/);
  const lines = new Set([...r.ptx!.matchAll(new RegExp(`\\.loc\\s+${file[1]}\\s+(\\d+)`, "g"))].map((x) => Number(x[1])));
  // k.ts: line 1 import, 2 kernel head, 3 grid, 4 if, 5 store.
  assert.ok(lines.has(5), `.loc lines: ${[...lines].join(", ")}`);
  for (const l of lines) assert.ok(l >= 2 && l <= 7, `.loc line ${l} is outside the kernel`);
});

test("code NVRTC rejects becomes CS9002 at the TypeScript line of the statement", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const m = moduleOf(SAXPY);
  const r = await compileModule(m, {
    cache: false,
    transformSource: (s) => s.replace("out[i] = a * x[i] + y[i];", "out[i] = a * x[i] + undefined_name[i];"),
  });
  assert.equal(r.ok, false);
  assert.equal(r.diagnostics.length, 1);
  const d = r.diagnostics[0]!;
  assert.equal(d.code, "CS9002");
  assert.equal(d.severity, "error");
  assert.match(d.message, /NVRTC rejected the generated code: identifier "undefined_name" is undefined/);
  assert.equal(d.span.file, `${VIRTUAL_ROOT}/k.ts`);
  assert.equal(d.span.line, 5);
  assert.equal(d.span.col, 5);
});

test("without #line directives, errors map through the lineMap", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const m = moduleOf(SAXPY);
  const r = await compileModule(m, {
    cache: false,
    transformSource: (s) => s.replace(/^#line .*$/gm, "// (directive removed)").replace("if (i < out_len) {", "if (i < out_len) { bogus();"),
  });
  assert.equal(r.ok, false);
  assert.equal(r.diagnostics[0]?.code, "CS9002");
  assert.equal(r.diagnostics[0]?.span.line, 4);
});

test("an architecture NVRTC cannot target is a CS9002 diagnostic, not a crash", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const r = await compileModule(moduleOf(SAXPY), { cache: false, arch: "sm_12" });
  assert.equal(r.ok, false);
  assert.equal(r.diagnostics[0]?.code, "CS9002");
  assert.match(r.diagnostics[0]!.message, /cannot compile for 'sm_12'/);
});

test("IR the backend cannot express becomes CS9001, not an exception", async () => {
  const m = moduleOf(SAXPY);
  const k = m.kernels[0]!;
  const broken: IrModule = { ...m, kernels: [{ ...k, params: [{ ...k.params[0]!, type: { kind: "void" } }] }] };
  const r = await compileModule(broken, { cache: false });
  assert.equal(r.ok, false);
  assert.equal(r.diagnostics[0]?.code, "CS9001");
});

test("the PTX assembles with a standalone ptxas for sm_80", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const ptxas = ptxasOrSkip(t);
  if (!ptxas) return;
  const r = await compileModule(moduleOf(SAXPY), { cache: false });
  const run = assemblePtx(ptxas, r.ptx!, "sm_80");
  assert.ok(run.ok, run.stderr);
});

// 40 accumulators live across a loop: uncapped, ptxas gives this kernel more than 32 registers.
const REGISTER_HUNGRY = (() => {
  const n = 40;
  const s = Array.from({ length: n }, (_, k) => `s${k}`);
  return `export const hungry = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    ${s.map((v, k) => `let ${v}: f32 = x[${k}];`).join("\n    ")}
    for (let k = 0; k < x.length; k++) {
      const v = x[k];
      ${s.map((v, k) => `${v} = ${v} * v + s${(k + 1) % n};`).join("\n      ")}
    }
    out[i] = ${s.join(" + ")};
  }
}/*OPTIONS*/);`;
})();

test("maxRegisters caps the registers of the compute_XX PTX the driver JIT-compiles (ptxas on the PTX)", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const ptxas = ptxasOrSkip(t);
  if (!ptxas) return;
  const registersOf = (ptx: string) => {
    const run = assemblePtx(ptxas, ptx, "sm_80", ["-v"]); // no --maxrregcount: only what the PTX says
    assert.ok(run.ok, run.stderr);
    return Number(/Used (\d+) registers/.exec(run.stderr)?.[1]);
  };
  const uncapped = await compileModule(moduleOf(REGISTER_HUNGRY.replace("/*OPTIONS*/", "")), { cache: false, arch: "compute_80" });
  const capped = await compileModule(moduleOf(REGISTER_HUNGRY.replace("/*OPTIONS*/", ", { maxRegisters: 32 }")), { cache: false, arch: "compute_80" });
  assert.ok(uncapped.ok && capped.ok);
  assert.ok(registersOf(uncapped.ptx!) > 32, "the kernel needs more than 32 registers uncapped");
  assert.match(capped.ptx!, /\.entry hungry\([^)]*\)\s*\.maxnreg 32\s*\{/);
  assert.ok(registersOf(capped.ptx!) <= 32, "the cap reaches ptxas through the PTX");
  assert.doesNotMatch(uncapped.ptx!, /\.maxnreg/);
});

test("PTX .file entries name the real TypeScript file, whatever the working directory", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const m = moduleOf(SAXPY.replace("cuda.jit((", "cuda.jit((").replace("});", "}, { lineinfo: true });"));
  const r = await compileModule(m, { cache: false });
  assert.ok(r.ok, r.diagnostics.map((d) => d.message).join("\n"));
  const files = [...r.ptx!.matchAll(/^\s*\.file\s+\d+\s+"([^"]*)"/gm)].map((x) => x[1]);
  assert.ok(files.length > 0, "lineinfo PTX has a .file table");
  assert.ok(files.includes(`${VIRTUAL_ROOT}/k.ts`), files.join(", "));
});

test("a path with a quote, a backslash, spaces and non-ASCII is escaped in .file, and ptxas accepts the PTX", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const ptxas = ptxasOrSkip(t);
  if (!ptxas) return;
  const name = 'we"ird \\ dir ü/k "x" ü.ts';
  const r0 = checkSources({ [name]: `import { cuda, f32 } from "cudascript";\n${SAXPY.replace("});", "}, { lineinfo: true });")}` });
  assert.deepEqual(r0.diagnostics.filter((d) => d.severity === "error"), []);
  for (const debug of [false, true]) {
    const m = debug ? { ...r0.module, kernels: r0.module.kernels.map((k) => ({ ...k, options: { ...k.options, debug: true } })) } : r0.module;
    const r = await compileModule(m, { cache: false });
    assert.ok(r.ok, r.diagnostics.map((d) => d.message).join("\n"));
    assert.deepEqual([...ptxFiles(r.ptx!).values()], [`${VIRTUAL_ROOT}/${name}`]);
    assert.match(r.ptx!, /\.file\s+1 "\/virtual\/cudascript-test\/we\\042ird \\134 dir \\303\\274\/k \\042x\\042 \\303\\274\.ts"/);
    const run = assemblePtx(ptxas, r.ptx!, "sm_80");
    assert.ok(run.ok, run.stderr);
  }
});

test("compiling for a GPU architecture older than a kernel's feature is CS4008 at the feature's line (not NVRTC's rejection), for every such kernel", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const module = moduleOf(`export const groups = cuda.jit((out: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = cuda.matchAnySync(0xffffffff, out[i]);
});
export const plain = cuda.jit((out: Uint32Array) => { out[0] = 1; });`);
  const old = compileModuleSync(module, { arch: "sm_60", cache: false });
  assert.equal(old.ok, false);
  assert.deepEqual(old.diagnostics.map((d) => `${d.code}@${d.span.line - 1}`), ["CS4008@3"]);
  assert.match(old.diagnostics[0]!.message, /kernel 'groups' uses cuda\.matchAnySync \/ cuda\.matchAllSync, which needs compute capability 7\.0 \(sm_70\) or newer, but this compiles for sm_60/);
  assert.equal(compileModuleSync(module, { arch: "sm_70", cache: false }).ok, true, "sm_70 has it");
});
