/**
 * Finds which identifiers the generated CUDA C++ cannot use as they are, by asking the compilers that
 * see that code: every candidate name is put in each place a user's identifier lands (kernel, device
 * function, module constant, parameter, local, local and shared array) and the names a compiler rejects
 * are the clashes. Compilers are behind `ProbeCompiler` (NVRTC and the g++ emulation, probe-compilers.ts).
 *
 * scripts/generate-reserved-names.mjs runs this and writes probed-names.generated.ts; a test checks that
 * file against the installed compilers.
 */

/** A compiler the probe programs are fed to. */
export interface ProbeCompiler {
  /** Short description for the generated file and messages, e.g. "NVRTC 11.8 (compute_90)". */
  readonly description: string;
  /**
   * Compiles `source` (one probe per line) and returns the 1-based lines that have errors: empty when
   * it compiled. Throws when it failed without an error on a line of `source`.
   */
  errorLines(source: string): Set<number>;
  /** Compiles `source` and returns which of `markers` survived preprocessing (see `macroProbe`). */
  survivingMarkers(source: string, markers: readonly string[]): Set<string>;
}

/** Which candidate names a compiler rejects, and where. */
export interface ProbedNames {
  /** Rejected as a parameter, local or shared/local array name (macros, mostly): rename everywhere. */
  anywhere: string[];
  /** Accepted inside functions, rejected at module scope (kernel, device function, `__constant__`). */
  moduleScope: string[];
}

/** One probe line per name; `i` makes helper names unique. Kept to the shapes generate.ts emits. */
type Form = (name: string, i: number) => string;

/** Inside functions: kernel array parameter, device-function scalar parameter, local scalar, loop
 * variable, local array, shared array (each in its own block so one name can take every role). */
const INSIDE_FUNCTIONS: Form = (n, i) =>
  `extern "C" __global__ void cs_probe_k${i}(float* __restrict__ ${n}, int cs_n) { ${n}[threadIdx.x] = 1.0f; } ` +
  `static __device__ __forceinline__ float cs_probe_d${i}(float ${n}) { float cs_v = ${n} * 2.0f; ` +
  `{ const float ${n} = cs_v; cs_v += ${n}; } ` +
  `for (int ${n} = 0; ${n} < 2; ${n}++) { cs_v += (float)${n}; } ` +
  `{ float ${n}[4] = {}; ${n}[1] = cs_v; cs_v = ${n}[1]; } ` +
  `{ __shared__ float ${n}[32]; ${n}[threadIdx.x] = cs_v; __syncthreads(); cs_v = ${n}[0]; } return cs_v; }`;

/** Module scope, one form per program (a name can hold only one of these roles in a program). */
const MODULE_SCOPE: Form[] = [
  (n) => `extern "C" __global__ void ${n}(float* __restrict__ cs_p, int cs_n) { if (cs_n > 0) cs_p[0] = 1.0f; }`,
  (n, i) =>
    `static __device__ __forceinline__ float ${n}(float cs_x) { return cs_x * 2.0f; } ` +
    `extern "C" __global__ void cs_probe_k${i}(float* cs_p) { cs_p[0] = ${n}(cs_p[0]); }`,
  (n, i) => `__constant__ float ${n}[2] = {1.0f, 2.0f}; extern "C" __global__ void cs_probe_k${i}(float* cs_p) { cs_p[0] = ${n}[1]; }`,
];

/**
 * Preprocessor probe: the marker of each name defined as a macro survives. Macros are found first
 * because a macro in a declaration derails the parser (one rejected name per compile otherwise).
 * The marker is a kernel so that NVRTC, which has no preprocess-only mode, shows it in the PTX.
 */
export function macroProbe(names: readonly string[]): { source: string; markers: string[] } {
  const markers = names.map((_, i) => `cs_macro_${i}`);
  const source = names.map((n, i) => `#if defined(${n})\nextern "C" __global__ void ${markers[i]}() {}\n#endif\n`).join("");
  return { source, markers };
}

/** The names of `names` that `compiler` rejects in `form`: compiles, drops the names on error lines, repeats. */
function rejectedIn(compiler: ProbeCompiler, names: readonly string[], form: Form): Set<string> {
  const rejected = new Set<string>();
  let remaining = [...names];
  // Compilers stop reporting after an error limit (NVRTC: 100), so this takes several rounds.
  while (remaining.length > 0) {
    const bad = compiler.errorLines(remaining.map(form).join("\n") + "\n");
    if (bad.size === 0) break;
    for (const line of bad) {
      const name = remaining[line - 1];
      if (name === undefined) throw new Error(`${compiler.description}: error on line ${line}, past the ${remaining.length} probes`);
      rejected.add(name);
    }
    remaining = remaining.filter((n) => !rejected.has(n));
  }
  return rejected;
}

/** Probes `candidates` (valid C++ identifiers that are not keywords) with `compiler`. */
export function probeNames(compiler: ProbeCompiler, candidates: readonly string[]): ProbedNames {
  // `defined` cannot be tested (or defined) as a macro; as an identifier it is probed like any other.
  const macroCandidates = candidates.filter((n) => n !== "defined");
  const probe = macroProbe(macroCandidates);
  const surviving = compiler.survivingMarkers(probe.source, probe.markers);
  const macros = macroCandidates.filter((_, i) => surviving.has(probe.markers[i]!));
  const anywhere = new Set(macros);
  for (const n of rejectedIn(compiler, candidates.filter((n) => !anywhere.has(n)), INSIDE_FUNCTIONS)) anywhere.add(n);
  const moduleScope = new Set<string>();
  for (const form of MODULE_SCOPE) {
    const rest = candidates.filter((n) => !anywhere.has(n) && !moduleScope.has(n));
    for (const n of rejectedIn(compiler, rest, form)) moduleScope.add(n);
  }
  return { anywhere: [...anywhere].sort(), moduleScope: [...moduleScope].sort() };
}

/** Every program `probeNames` would compile last, all of which compile when `names` are all accepted. */
export function acceptanceSources(names: readonly string[]): string[] {
  return [INSIDE_FUNCTIONS, ...MODULE_SCOPE].map((form) => names.map(form).join("\n") + "\n");
}

const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/g;

/** The identifiers in the printable runs of `bytes` (header text embedded in a library, or source). */
export function identifiersIn(bytes: Uint8Array): Set<string> {
  const found = new Set<string>();
  for (const run of Buffer.from(bytes).toString("latin1").split(/[^\x20-\x7e\t\r\n]+/)) {
    if (run.length >= 4) for (const m of run.matchAll(IDENTIFIER)) found.add(m[0]);
  }
  return found;
}
