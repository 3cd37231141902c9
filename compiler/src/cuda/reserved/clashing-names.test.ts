// Every name the compilers' headers clash with (probed-names.generated.ts) works as a kernel name, a
// device-function name and a local variable name: the checker accepts it, NVRTC compiles the generated
// C++ of NVRTC's names and ptxas assembles it (the PTX entries being the symbols the host looks up), and
// g++ compiles the generated C++ of every listed name against the emulation header. One program per
// role, many kernels each, to stay fast.
import { test } from "node:test";
import assert from "node:assert/strict";
import { assemblePtx, type CompileResult } from "@cudascript/native-bindings";
import { nvrtcOrSkip, ptxasOrSkip } from "../../../../test/dist/support/toolchain-or-skip";
import { checkSources } from "../../../../test/dist/support/check-sources";
import { generateCuda, type GeneratedCuda } from "../generate";
import { isReserved, isReservedAtModuleScope } from "../names";
import { PROBED_NAMES } from "./probed-names.generated";
import { gxxOrSkip } from "./test-helpers";

// Words TypeScript does not allow as a `const` name in a module (strict mode), and the names the
// test file itself imports: those cannot reach the code generator at all.
const NOT_A_TS_CONST = new Set([
  "arguments", "await", "eval", "implements", "interface", "let", "package", "private", "protected", "public",
  "static", "yield", "undefined", "NaN", "Infinity", "cuda", "f32", "Float32Array", "Math",
]);

const usable = (names: Iterable<string>) => [...new Set(names)].filter((n) => !NOT_A_TS_CONST.has(n)).sort();
const NVRTC_LISTED = usable([...PROBED_NAMES.nvrtc.names.anywhere, ...PROBED_NAMES.nvrtc.names.moduleScope]);
const LISTED = usable([...NVRTC_LISTED, ...PROBED_NAMES.gxxEmulation.names.anywhere, ...PROBED_NAMES.gxxEmulation.names.moduleScope]);

const IMPORT = `import { cuda, f32 } from "cudascript";\n`;

/** One kernel per name, named by it, with a local of the same name. */
function kernelsAndLocals(names: readonly string[]): string {
  return IMPORT + names.map((n) => `export const ${n} = cuda.jit((out: Float32Array) => { const ${n} = out[0] + 1; out[0] = ${n}; });`).join("\n");
}

/** One device function per name, all called from one kernel. */
function deviceFunctions(names: readonly string[]): string {
  const devices = names.map((n) => `const ${n} = cuda.device((x: f32): f32 => x * 0.5 + 1);`);
  const calls = names.map((n) => `  v = ${n}(v);`);
  return IMPORT + [...devices, `export const callAll = cuda.jit((out: Float32Array) => {`, `  let v = out[0];`, ...calls, `  out[0] = v;`, `});`].join("\n");
}

const generatedBySource = new Map<string, GeneratedCuda>(); // the tests share the big programs

function generated(source: string): GeneratedCuda {
  const known = generatedBySource.get(source);
  if (known) return known;
  const r = checkSources({ "names.ts": source });
  const errors = r.diagnostics.filter((d) => d.severity === "error");
  assert.deepEqual(errors.slice(0, 10).map((d) => `${d.span.line}: ${d.code} ${d.message}`), []);
  const g = generateCuda(r.module, { lineDirectives: false });
  generatedBySource.set(source, g);
  return g;
}

test("every probed clashing name is renamed in the generated C++, and only those names are", () => {
  assert.ok(LISTED.length > 1000, `the probed lists look empty (${LISTED.length} names)`);
  const g = generated(kernelsAndLocals(LISTED));
  for (const k of g.kernels) {
    if (isReservedAtModuleScope(k.name)) assert.notEqual(k.symbol, k.name);
    else assert.equal(k.symbol, k.name);
  }
  // Readable code: a function-like name that only clashes at module scope stays as it is for a local.
  assert.ok(!isReserved("erf") && isReservedAtModuleScope("erf"));
  assert.match(generated(kernelsAndLocals(["erf"])).source, /^ {2}const float erf = out\[0\] \+ 1\.0f;$/m);
});

test("every name NVRTC clashes with works as kernel, device-function and local name through NVRTC and ptxas", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const ptxas = ptxasOrSkip(t);
  if (!ptxas) return;
  const arch = nvrtc.supportsArch(80) ? 80 : Math.max(...nvrtc.info.supportedArchs);
  for (const [role, source] of [
    ["kernel and local", kernelsAndLocals(NVRTC_LISTED)],
    ["device function", deviceFunctions(NVRTC_LISTED)],
  ] as const) {
    const g = generated(source);
    const r: CompileResult = nvrtc.compile({ source: g.source, name: "names.cu", options: [`--gpu-architecture=compute_${arch}`] });
    assert.ok(r.ok, `${role}: NVRTC rejected the generated C++:\n${r.log.slice(0, 3000)}`);
    const entries = new Set<string>([...r.ptx!.matchAll(/^\.visible \.entry (\w+)\(/gm)].map((m) => m[1]!));
    assert.deepEqual([...entries].sort(), g.kernels.map((k) => k.symbol).sort(), `${role}: PTX entries are the kernel symbols`);
    const assembled = assemblePtx(ptxas, r.ptx!, `sm_${arch}`);
    assert.ok(assembled.ok, `${role}: ptxas rejected the PTX:\n${assembled.stderr.slice(0, 3000)}`);
  }
});

test("every probed clashing name works as kernel, device-function and local name in the g++ emulation", (t) => {
  const gxx = gxxOrSkip(t);
  if (!gxx) return;
  for (const [role, source] of [
    ["kernel and local", kernelsAndLocals(LISTED)],
    ["device function", deviceFunctions(LISTED)],
  ] as const) {
    const lines = gxx.compiler.errorLines(generated(source).source);
    assert.deepEqual([...lines].slice(0, 20), [], `${role}: g++ rejected these lines of the generated C++`);
  }
});
