#!/usr/bin/env node
// Regenerates compiler/src/cuda/reserved/probed-names.generated.ts: the names NVRTC and the g++
// emulation reject as kernel, device-function, constant or variable names (compiler/src/cuda/reserved/
// probe.ts says how). Needs NVRTC and g++; run `npx tsc -b` first, and again after (the list is source).
// Takes about a minute: NVRTC reports at most 100 errors per compile.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const { loadNvrtc } = require(join(root, "native-bindings/dist/index.js"));
const reserved = require(join(root, "compiler/dist/cuda/reserved/index.js"));

const load = loadNvrtc();
if (!load.ok) {
  console.error(load.error.message);
  process.exit(1);
}
const gxx = process.env.CXX || "g++";
const header = join(root, "test/emulation/cuda_emulation.hpp");
const started = Date.now();
const nvrtc = reserved.nvrtcProbeCompiler(load.nvrtc);
const gxxCompiler = reserved.gxxProbeCompiler(gxx, header);
const candidates = reserved.probeCandidates(reserved.nvrtcCandidates(load.nvrtc), reserved.gxxCandidates(gxx, header));
console.log(`probing ${candidates.length} names with ${nvrtc.description} and ${gxxCompiler.description}`);
const lists = reserved.buildLists(nvrtc, gxxCompiler, candidates);
const out = join(root, "compiler/src/cuda/reserved/probed-names.generated.ts");
writeFileSync(out, reserved.renderLists(lists));
for (const [key, e] of Object.entries(lists)) {
  console.log(`${key}: ${e.names.anywhere.length} names clash anywhere, ${e.names.moduleScope.length} at module scope`);
}
console.log(`wrote ${out} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
