// Helpers for tests (under test/ and the packages' own *.test.ts) that need NVRTC or ptxas. Without the tool the
// test is skipped loudly, unless CI demands it (CUDASCRIPT_REQUIRE_NVRTC=1 /
// CUDASCRIPT_REQUIRE_PTXAS=1): then it fails, so a broken CI image cannot pass by skipping.
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
