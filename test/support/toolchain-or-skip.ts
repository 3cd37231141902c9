// Helpers for tests (under test/ and the packages' own *.test.ts) that need NVRTC or ptxas. Without the tool the
// test is skipped loudly, unless CI demands it (CUDASCRIPT_REQUIRE_NVRTC=1 /
// CUDASCRIPT_REQUIRE_PTXAS=1): then it fails, so a broken CI image cannot pass by skipping.
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TestContext } from "node:test";
import { findPtxas, loadNvrtc, type Nvrtc } from "@cudascript/native-bindings";

/** NVRTC for this test, or undefined after skipping it (the caller returns). */
export function nvrtcOrSkip(t: TestContext): Nvrtc | undefined {
  const load = loadNvrtc();
  if (load.ok) return load.nvrtc;
  return skipOrFail(t, "NVRTC", "CUDASCRIPT_REQUIRE_NVRTC", load.error.message);
}

/** Path of a standalone ptxas for this test, or undefined after skipping it. */
export function ptxasOrSkip(t: TestContext): string | undefined {
  const ptxas = findPtxas();
  if (ptxas) return ptxas;
  return skipOrFail(
    t,
    "ptxas",
    "CUDASCRIPT_REQUIRE_PTXAS",
    "no ptxas in CUDASCRIPT_PTXAS, $CUDA_PATH/bin, $CUDA_HOME/bin, /usr/local/cuda/bin or PATH (install the CUDA Toolkit)",
  );
}

const explained = new Set<string>(); // tools whose full "how to install" text was printed

function skipOrFail(t: TestContext, tool: string, requireVariable: string, details: string): undefined {
  const headline = `${tool} not found: ${details.split("\n")[0]}`;
  if (process.env[requireVariable] === "1") {
    throw new Error(`${requireVariable}=1 but ${headline}\n${details}`);
  }
  const more = explained.has(tool) ? "" : `\n${details}\n(set ${requireVariable}=1 to make this a failure)`;
  explained.add(tool);
  console.warn(`\n*** SKIPPING "${t.name}": ${headline}${more}\n`);
  t.skip(headline);
  return undefined;
}

/**
 * Compiles CUDA C++ with NVRTC (compute_80) and assembles the PTX with ptxas (sm_80), asserting both
 * succeed; skips (as above) where either tool is missing.
 */
export function assertCompilesForSm80(t: TestContext, source: string, name: string): void {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const r = nvrtc.compile({ source, name, options: ["--gpu-architecture=compute_80"] });
  assert.ok(r.ok, r.log);
  const ptxas = ptxasOrSkip(t);
  if (!ptxas) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-sm80-"));
  try {
    fs.writeFileSync(path.join(dir, "p.ptx"), r.ptx!);
    const run = spawnSync(ptxas, ["-arch=sm_80", "-o", path.join(dir, "p.cubin"), path.join(dir, "p.ptx")], { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
