// probed-names.generated.ts is current for the installed compilers. Regenerating takes minutes (NVRTC
// stops at 100 errors per compile), so the NVRTC check compiles only programs that must succeed:
//  - every candidate name that is not listed compiles in every probe form (nothing clashes unlisted);
//  - every macro among the candidates is listed as clashing anywhere;
//  - every listed name is still a candidate (still in the headers: no stale entries).
// g++ is fast enough to regenerate its list outright and compare.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nvrtcOrSkip } from "../../../../test/dist/support/toolchain-or-skip";
import { isReservedByRule } from "../names";
import { probeCandidates } from "./generate-list";
import { acceptanceSources, macroProbe, probeNames, type ProbeCompiler, type ProbedNames } from "./probe";
import { gxxCandidates, nvrtcCandidates, nvrtcProbeCompiler } from "./probe-compilers";
import { PROBED_NAMES } from "./probed-names.generated";
import { EMULATION_HEADER, gxxOrSkip } from "./test-helpers";

const REGENERATE = "run `npx tsc -b && node scripts/generate-reserved-names.mjs` and commit compiler/src/cuda/reserved/probed-names.generated.ts";

function unlistedButRejected(compiler: ProbeCompiler, candidates: readonly string[], listed: ProbedNames): string[] {
  const all = new Set([...listed.anywhere, ...listed.moduleScope]);
  const unlisted = candidates.filter((n) => !all.has(n));
  const rejected = new Set<string>();
  for (const source of acceptanceSources(unlisted)) for (const line of compiler.errorLines(source)) rejected.add(unlisted[line - 1] ?? `line ${line}`);
  return [...rejected].sort();
}

test("the probed name list is current for the installed NVRTC", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const compiler = nvrtcProbeCompiler(nvrtc);
  const listed = PROBED_NAMES.nvrtc.names;
  // A name that NVRTC's header text does not hold can only clash as a predefined macro: the macro probe
  // also takes the g++ candidates (they include the usual predefined macros), the compiles only NVRTC's.
  const gxx = process.env.CXX || "g++";
  let fromGxx: Iterable<string> = [];
  try {
    fromGxx = gxxCandidates(gxx, EMULATION_HEADER);
  } catch {
    console.warn(`\n*** "${t.name}": no ${gxx}, probing only the names in NVRTC's headers for macros\n`);
  }
  const candidates = probeCandidates(nvrtcCandidates(nvrtc));
  const macroCandidates = probeCandidates(candidates, fromGxx).filter((n) => n !== "defined");
  const context = `${compiler.description}, list from ${PROBED_NAMES.nvrtc.compiler}: ${REGENERATE}`;

  const probe = macroProbe(macroCandidates);
  const macros = [...compiler.survivingMarkers(probe.source, probe.markers)].map((m) => macroCandidates[probe.markers.indexOf(m)]!);
  assert.deepEqual(macros.filter((m) => !listed.anywhere.includes(m)).sort(), [], `macros not listed (${context})`);

  assert.deepEqual(unlistedButRejected(compiler, candidates, listed), [], `names NVRTC rejects that are not listed (${context})`);

  const inHeaders = new Set(macroCandidates);
  const stale = [...listed.anywhere, ...listed.moduleScope].filter((n) => !inHeaders.has(n) || isReservedByRule(n));
  assert.deepEqual(stale, [], `listed names that are no longer in NVRTC's headers (${context})`);
});

test("the probed name list is current for the g++ emulation", (t) => {
  const gxx = gxxOrSkip(t);
  if (!gxx) return;
  const candidates = probeCandidates(gxxCandidates(gxx.gxx, EMULATION_HEADER));
  const probed = probeNames(gxx.compiler, candidates);
  const listed = PROBED_NAMES.gxxEmulation.names;
  const context = `${gxx.compiler.description}, list from ${PROBED_NAMES.gxxEmulation.compiler}: ${REGENERATE}`;
  // The generator also probes g++ with NVRTC's candidates: names only those hold may be listed too.
  const missing = (mine: string[], theirs: string[]) => mine.filter((n) => !theirs.includes(n));
  assert.deepEqual(missing(probed.anywhere, listed.anywhere), [], `names g++ rejects anywhere that are not listed so (${context})`);
  assert.deepEqual(missing(probed.moduleScope, listed.moduleScope), [], `names g++ rejects at module scope that are not listed so (${context})`);
  const mine = new Set(candidates);
  const stale = (theirs: string[], mineProbed: string[]) => theirs.filter((n) => mine.has(n) && !mineProbed.includes(n));
  assert.deepEqual(stale(listed.anywhere, probed.anywhere), [], `names listed as clashing anywhere that g++ accepts there (${context})`);
  assert.deepEqual(stale(listed.moduleScope, probed.moduleScope), [], `names listed as clashing at module scope that g++ places otherwise (${context})`);
});
