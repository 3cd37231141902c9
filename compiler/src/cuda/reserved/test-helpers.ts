// Shared by the reserved-name tests: the g++ emulation as a probe compiler, or a loud skip without g++
// (a failure under CUDASCRIPT_REQUIRE_GXX=1, as in test/emulation).
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import type { TestContext } from "node:test";
import { gxxProbeCompiler } from "./probe-compilers";
import type { ProbeCompiler } from "./probe";

/** test/emulation/cuda_emulation.hpp, from compiler/dist/cuda/reserved. */
export const EMULATION_HEADER = path.resolve(__dirname, "../../../../test/emulation/cuda_emulation.hpp");

export function gxxOrSkip(t: TestContext): { gxx: string; compiler: ProbeCompiler } | undefined {
  const gxx = process.env.CXX || "g++";
  const r = spawnSync(gxx, ["--version"], { encoding: "utf8" });
  if (!r.error && r.status === 0) return { gxx, compiler: gxxProbeCompiler(gxx, EMULATION_HEADER) };
  const why = `g++ not found (set CXX or install g++): the emulation of the generated C++ needs it`;
  if (process.env.CUDASCRIPT_REQUIRE_GXX === "1") throw new Error(`CUDASCRIPT_REQUIRE_GXX=1 but ${why}`);
  console.warn(`\n*** SKIPPING "${t.name}": ${why}\n`);
  t.skip(why);
  return undefined;
}
