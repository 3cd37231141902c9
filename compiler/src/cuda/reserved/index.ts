// Probing the compilers for the names generated code cannot use (tooling for
// scripts/generate-reserved-names.mjs and the tests; the compiler itself only reads the generated list).
export { acceptanceSources, identifiersIn, macroProbe, probeNames, type ProbeCompiler, type ProbedNames } from "./probe";
export { gxxCandidates, gxxProbeCompiler, nvrtcCandidates, nvrtcProbeCompiler } from "./probe-compilers";
export { buildLists, probeCandidates, renderLists, type ReservedNameLists } from "./generate-list";
