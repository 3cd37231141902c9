/**
 * Every valid corpus kernel through the real toolchain: one NVRTC program per file for sm_80, the PTX
 * assembles with a standalone ptxas for sm_80 and sm_90, NVRTC's ptxas report gives the same register
 * counts as the standalone ptxas on the same PTX, and the #line directives agree with the lineMap.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { assemblePtx, parseKernelResources } from "@cudascript/native-bindings";
import { nvrtcOrSkip, ptxasOrSkip } from "../support/toolchain-or-skip";
import { compileModule, generateCuda, KernelChecker, unexpectedContractions, type CompileOutput, type IrModule } from "@cudascript/compiler";

/** "13.0" from `ptxas --version` ("Cuda compilation tools, release 13.0, …"). */
function ptxasRelease(ptxas: string): string | undefined {
  return /release (\d+\.\d+)/.exec(spawnSync(ptxas, ["--version"], { encoding: "utf8" }).stdout ?? "")?.[1];
}

/** Kernels of a compile whose PTX fuses a * b + c although they neither opt in nor call cuda.fma (should be none). */
function contractedKernels(m: IrModule, r: CompileOutput): string[] {
  const symbol = new Map(r.cuda.kernels.map((k) => [k.name, k.symbol]));
  return unexpectedContractions(m, r.modules.map((x) => ({ ptx: x.ptx ?? "" })), (k) => symbol.get(k)!).map((x) => `${x.kernel}: ${x.fmas} fma.rn`);
}

/**
 * NVVM numbers the `// callseq N` comments around PTX calls (libdevice slow paths such as f64 sin/cos
 * argument reduction) with a counter that keeps counting across the compiles of one process, so two
 * compiles of the same program differ in those comments only.
 */
function withoutCallSeqNumbers(ptx: string): string {
  return ptx.replace(/\/\/ callseq \d+/g, "// callseq");
}

const CORPUS = path.resolve(__dirname, "../../corpus/valid");
const files = fs
  .readdirSync(CORPUS)
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".ref.ts"))
  .sort();
const checker = new KernelChecker();
const modules = new Map<string, IrModule>();
function moduleOf(f: string): IrModule {
  let m = modules.get(f);
  if (!m) {
    const r = checker.checkFile(path.join(CORPUS, f));
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), [], f);
    m = r.module;
    modules.set(f, m);
  }
  return m;
}

test("the corpus has the expected size", () => {
  assert.ok(files.length >= 27, `${files.length} files`);
  const kernels = files.reduce((n, f) => n + moduleOf(f).kernels.length, 0);
  assert.ok(kernels >= 49, `${kernels} kernels`);
});

for (const f of files) {
  test(`${f}: #line directives and lineMap agree`, () => {
    const g = generateCuda(moduleOf(f));
    const lines = g.source.split("\n");
    const assigned = new Map<number, [string, number]>();
    let cur: [string, number] | undefined;
    lines.forEach((text, i) => {
      const d = /^#line (\d+) "([^"]+)"$/.exec(text);
      if (d) cur = [d[2]!, Number(d[1])];
      else if (cur) assigned.set(i + 1, [cur[0], cur[1]++]);
    });
    for (const e of g.lineMap) {
      const a = assigned.get(e.generatedLine);
      assert.ok(a, `line ${e.generatedLine} has no directive before it`);
      assert.equal(path.resolve(CORPUS, a[0]), e.file);
      assert.equal(a[1], e.line, `generated line ${e.generatedLine}: ${lines[e.generatedLine - 1]}`);
    }
    // Every kernel statement is mapped.
    assert.ok(g.lineMap.length >= moduleOf(f).kernels.length * 2);
  });

  test(`${f}: NVRTC compiles it as one program; ptxas assembles it for sm_80 and sm_90; register counts agree`, async (t) => {
    if (!nvrtcOrSkip(t)) return;
    const ptxas = ptxasOrSkip(t);
    if (!ptxas) return;
    const m = moduleOf(f);
    const ptxOnly = await compileModule(m, { arch: "compute_80", cache: false });
    assert.ok(ptxOnly.ok, ptxOnly.diagnostics.map((d) => `${d.span.line}: ${d.message}`).join("\n"));
    assert.equal(ptxOnly.modules.length, 1, "all kernels of the file in one NVRTC program");
    assert.deepEqual(contractedKernels(m, ptxOnly), [], "no FMA contraction in kernels that do not opt in");
    const r = await compileModule(m, { arch: "sm_80", resources: true, cache: false });
    assert.ok(r.ok, r.diagnostics.map((d) => `${d.span.line}: ${d.message}`).join("\n"));
    assert.equal(withoutCallSeqNumbers(r.ptx!), withoutCallSeqNumbers(ptxOnly.ptx!), "compute_80 and sm_80 compiles give the same PTX");
    assert.deepEqual([...r.resources.keys()].sort(), m.kernels.map((k) => k.name).sort());
    for (const arch of ["sm_80", "sm_90"]) {
      const run = assemblePtx(ptxas, ptxOnly.ptx!, arch, ["-v"]);
      assert.ok(run.ok, `ptxas -arch=${arch}: ${run.stderr}`);
      if (arch !== "sm_80") continue;
      const standalone = new Map(parseKernelResources(run.stderr).map((k) => [k.name, k.registers]));
      // The same ptxas release allocates the same registers; another release (the standalone ptxas can be
      // newer than NVRTC's, e.g. 13.0 beside NVRTC 11.8) may differ by a register or two, or by two
      // pairs where 64-bit integers (held in register pairs) are involved.
      const uses64 = /\blong long\b/.test(r.cuda.source);
      const slack = ptxasRelease(ptxas) === r.nvrtcVersion ? 0 : uses64 ? 4 : 2;
      for (const k of r.cuda.kernels) {
        const diff = Math.abs(standalone.get(k.symbol)! - r.resources.get(k.name)!.registers);
        assert.ok(diff <= slack, `${k.name}: ptxas -v ${standalone.get(k.symbol)} vs NVRTC -Xptxas -v ${r.resources.get(k.name)!.registers} (ptxas ${ptxasRelease(ptxas)}, NVRTC ${r.nvrtcVersion})`);
      }
    }
  });
}

test("f64 atomicAdd compiles for pre-sm_60 GPUs through the generated compare-and-swap fallback", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const r = await compileModule(moduleOf("f64_kernels.ts"), { arch: "sm_52", cache: false });
  assert.ok(r.ok, r.diagnostics.map((d) => d.message).join("\n"));
  assert.match(r.ptx!, /atom\.global\.cas\.b64/);
  const modern = await compileModule(moduleOf("f64_kernels.ts"), { arch: "sm_80", cache: false });
  assert.match(modern.ptx!, /atom\.global\.add\.f64/);
});

test("f16 arithmetic is native half instructions in the PTX, from sm_75 on", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const ptxas = ptxasOrSkip(t);
  if (!ptxas) return;
  const r = await compileModule(moduleOf("half_precision.ts"), { arch: "compute_75", cache: false });
  assert.ok(r.ok, r.diagnostics.map((d) => d.message).join("\n"));
  for (const instruction of [/\badd\.rn\.f16\b/, /\bmul\.rn\.f16\b/, /\bsub\.rn\.f16\b/, /\bneg\.f16\b/, /\babs\.f16\b/, /\bsetp\.lt\.f16\b/, /\bcvt\.rn\.f16\.f32\b/, /\bcvt\.rn\.f16\.s32\b/])
    assert.match(r.ptx!, instruction);
  const run = assemblePtx(ptxas, r.ptx!, "sm_75");
  assert.ok(run.ok, `ptxas -arch=sm_75: ${run.stderr}`);
});

// Examples: every example file with kernels compiles too (none is skipped for being an example).
const EXAMPLES = path.resolve(__dirname, "../../../examples");
function exampleFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name === "dist" ? [] : exampleFiles(p);
    return /\.ts$/.test(e.name) && !e.name.endsWith(".d.ts") && /from\s+["']cudascript["']/.test(fs.readFileSync(p, "utf8")) ? [p] : [];
  });
}
for (const file of exampleFiles(EXAMPLES)) {
  test(`example ${path.relative(EXAMPLES, file)} compiles without FMA contraction and assembles for sm_80`, async (t) => {
    const check = checker.checkFile(file);
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.span.line}: ${d.message}`), []);
    if (check.module.kernels.length === 0) return;
    if (!nvrtcOrSkip(t)) return;
    const ptxas = ptxasOrSkip(t);
    if (!ptxas) return;
    const r = await compileModule(check.module, { arch: "sm_80", cache: false });
    assert.ok(r.ok, r.diagnostics.map((d) => `${d.span.line}: ${d.message}`).join("\n"));
    assert.deepEqual(contractedKernels(check.module, r), [], "no FMA contraction in kernels that do not opt in");
    for (const m of r.modules) {
      const run = assemblePtx(ptxas, m.ptx!, "sm_80");
      assert.ok(run.ok, run.stderr);
    }
  });
}
