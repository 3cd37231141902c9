/**
 * Every valid corpus file and every example through the real toolchain with nothing to say (issue 28's
 * proof): NVRTC for sm_70 with its own ptxas (the standalone one, from CUDA 13, no longer targets
 * Volta, the first GPUs with match.sync and f16 atomics), then the standalone ptxas for sm_80 and sm_90
 * on the same PTX — each without a warning. (corpus.test.ts checks register counts and line maps.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { assemblePtx } from "@cudascript/native-bindings";
import { compileModule, generateCuda, KernelChecker } from "@cudascript/compiler";
import { nvrtcOrSkip, ptxasOrSkip } from "../support/toolchain-or-skip";

const REPO = path.resolve(__dirname, "../../..");
const sources = (dir: string) =>
  fs
    .readdirSync(path.join(REPO, dir))
    .filter((f) => /\.m?ts$/.test(f) && !f.endsWith(".ref.ts") && !f.endsWith(".d.ts"))
    .sort()
    .map((f) => path.join(dir, f));
const files = [...sources("test/corpus/valid"), ...sources("examples")];
const checker = new KernelChecker();

/** The warnings in an NVRTC log. */
function nvrtcWarnings(log: string): string[] {
  return log.split("\n").filter((l) => /warning/i.test(l));
}

/**
 * ptxas says a kernel that reaches a recursive device function has a stack size it "cannot statically
 * determine": that is what recursion is, and why the GPU backend sets the stack from the kernel's
 * recursionDepth (runtime/src/gpu/recursion-stack.ts). That one warning is expected, for those kernels only.
 */
function unexpected(warnings: readonly string[], recursiveKernels: ReadonlySet<string>): string[] {
  return warnings.filter((w) => {
    const m = /Stack size for entry function '(\w+)' cannot be statically determined/.exec(w);
    return !(m && recursiveKernels.has(m[1]!));
  });
}

test("the corpus files with warp match are among them", () => {
  for (const f of ["warp_f16.ts", "warp_numba_ports.ts", "warp_match.ts"]) assert.ok(files.includes(`test/corpus/valid/${f}`), f);
});

for (const f of files) {
  test(`${f}: NVRTC compiles it for sm_70 and ptxas assembles it for sm_80 and sm_90, with no warning`, async (t) => {
    const r = checker.checkFile(path.join(REPO, f));
    if (r.module.kernels.length === 0) return t.skip("no kernel in this file");
    if (!nvrtcOrSkip(t)) return;
    const ptxas = ptxasOrSkip(t);
    if (!ptxas) return;
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.span.line}: ${d.code} ${d.message}`), []);
    const volta = await compileModule(r.module, { arch: "sm_70", emit: ["ptx", "cubin"], cache: false });
    assert.ok(volta.ok && volta.cubin, volta.diagnostics.map((d) => `${d.span.line}: ${d.message}`).join("\n"));
    const recursive = new Set(generateCuda(r.module).kernels.filter((k) => k.recursionDepth !== undefined).map((k) => k.symbol));
    assert.deepEqual(unexpected(nvrtcWarnings(volta.modules.map((m) => m.log).join("\n")), recursive), [], "NVRTC's log (sm_70)");
    for (const arch of ["sm_80", "sm_90"]) {
      const run = assemblePtx(ptxas, volta.ptx!, arch);
      assert.ok(run.ok, `ptxas -arch=${arch}: ${run.stderr}`);
      assert.deepEqual(unexpected(run.stderr.split("\n").filter((l) => l.trim() !== ""), recursive), [], `ptxas -arch=${arch}`);
    }
  });
}
