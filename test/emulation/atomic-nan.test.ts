/**
 * cuda.atomic.max / min / nanmax / nanmin on floats follow Numba's NaN rule (numba-cuda's GPU lowering,
 * ___numba_atomic_{float,double}_{nan,}{max,min}) on every backend: the g++ emulation of the generated
 * CUDA C++, the simulator, and the table documented in docs/kernel-language.md. Compared with
 * Object.is, so -0 and NaN count; the returned old value is checked too.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { compileModuleSync, generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { cuda } from "cudascript";
import type { CorpusCase } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { emulateCase, findGxx } from "./harness";

const OPS = ["max", "min", "nanmax", "nanmin"] as const;
type Op = (typeof OPS)[number];

/**
 * The rule, row by row (docs/kernel-language.md, "Atomics"): element before, value, element after each
 * op. A NaN value never changes the element; a NaN element stays for max/min and takes the value for
 * nanmax/nanmin; equal values (+0 and -0 included) leave the element.
 */
const TABLE: readonly (readonly [elem: number, value: number, after: Record<Op, number>])[] = [
  [NaN, 1, { max: NaN, min: NaN, nanmax: 1, nanmin: 1 }],
  [1, NaN, { max: 1, min: 1, nanmax: 1, nanmin: 1 }],
  [NaN, NaN, { max: NaN, min: NaN, nanmax: NaN, nanmin: NaN }],
  [-0, 0, { max: -0, min: -0, nanmax: -0, nanmin: -0 }],
  [0, -0, { max: 0, min: 0, nanmax: 0, nanmin: 0 }],
  [1, 2, { max: 2, min: 1, nanmax: 2, nanmin: 1 }],
  [2, 1, { max: 2, min: 1, nanmax: 2, nanmin: 1 }],
  [-1, -0, { max: -0, min: -1, nanmax: -0, nanmin: -1 }],
  [NaN, -Infinity, { max: NaN, min: NaN, nanmax: -Infinity, nanmin: -Infinity }],
  [-Infinity, NaN, { max: -Infinity, min: -Infinity, nanmax: -Infinity, nanmin: -Infinity }],
  [Infinity, 3, { max: Infinity, min: 3, nanmax: Infinity, nanmin: 3 }],
];

const kernelName = (op: Op, dtype: "f32" | "f64"): string => `${op}_${dtype}`;
const SOURCE = [
  'import { cuda } from "cudascript";',
  ...OPS.flatMap((op) =>
    (["f32", "f64"] as const).map((d) => {
      const T = d === "f32" ? "Float32Array" : "Float64Array";
      return `export const ${kernelName(op, d)} = cuda.jit((a: ${T}, v: ${T}, old: ${T}) => {
  const i = cuda.grid(1);
  if (i < a.length) old[i] = cuda.atomic.${op}(a, i, v[i]);
});`;
    }),
  ),
  "",
].join("\n");

const file = path.join(__dirname, "..", "..", "emulation", `__atomic_nan_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const gen = generateCuda(check.module);
const artifact = makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });

const show = (x: number): string => (Object.is(x, -0) ? "-0" : String(x));

/** Rows where `after` (the array after the launch) or `old` (the returned values) break the table. */
function mismatches(op: Op, after: ArrayLike<number>, old: ArrayLike<number>): string[] {
  const bad: string[] = [];
  TABLE.forEach(([elem, value, want], i) => {
    const call = `atomic.${op}(element ${show(elem)}, value ${show(value)})`;
    if (!Object.is(after[i], want[op])) bad.push(`${call} left ${show(after[i]!)}, the rule says ${show(want[op])}`);
    if (!Object.is(old[i], elem)) bad.push(`${call} returned ${show(old[i]!)}, not the old value ${show(elem)}`);
  });
  return bad;
}

function inputs(dtype: "f32" | "f64"): { a: Float32Array | Float64Array; v: Float32Array | Float64Array; old: Float32Array | Float64Array } {
  const T = dtype === "f32" ? Float32Array : Float64Array;
  return { a: T.from(TABLE.map((r) => r[0])), v: T.from(TABLE.map((r) => r[1])), old: new T(TABLE.length) };
}

describe("atomic max/min/nanmax/nanmin follow Numba's NaN and ±0 rule on every backend", () => {
  it("the checker accepts the kernels; floats use the CAS-loop helpers; NVRTC compiles the code", (t) => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error"), []);
    for (const h of ["cs_atomicMax", "cs_atomicMin", "cs_atomicNanMax", "cs_atomicNanMin"]) {
      assert.match(gen.source, new RegExp(`float ${h}\\(float\\* address`));
      assert.match(gen.source, new RegExp(`double ${h}\\(double\\* address`));
    }
    if (!nvrtcOrSkip(t)) return;
    const r = compileModuleSync(check.module, { cache: false });
    assert.ok(r.ok, r.diagnostics.map((d) => d.message).join("\n"));
  });

  const KERNELS = OPS.flatMap((op) => (["f32", "f64"] as const).map((dtype) => ({ op, dtype, name: kernelName(op, dtype) })));

  it("the generated C++ (g++ emulation) follows the table", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    // One build, one launch per kernel, each on its own arrays.
    const c: CorpusCase = {
      name: "atomic NaN table",
      setup: () => Object.fromEntries(KERNELS.flatMap(({ name, dtype }) => Object.entries(inputs(dtype)).map(([k, x]) => [`${name}_${k}`, x]))),
      launches: KERNELS.map(({ name }) => ({ kernel: name, grid: 1, block: 32, args: [`${name}_a`, `${name}_v`, `${name}_old`] })),
      reference: () => ({}),
    };
    const { outputs } = await emulateCase(gxx, "atomic_nan", gen, c, c.setup());
    const bad = KERNELS.flatMap(({ op, dtype, name }) => mismatches(op, outputs.get(`${name}_a`) as Float32Array, outputs.get(`${name}_old`) as Float32Array).map((m) => `${dtype}: ${m}`));
    assert.deepEqual(bad, []);
  });

  for (const { op, dtype, name } of KERNELS) {
    it(`${name}: the simulator follows the table`, () => {
      const { a, v, old } = inputs(dtype);
      const da = cuda.toDevice(a), dold = cuda.toDevice(old);
      kernel(artifact, name).launch(1, 32)(da, cuda.toDevice(v), dold);
      assert.deepEqual(mismatches(op, da.copyToHost() as Float32Array | Float64Array, dold.copyToHost() as Float32Array | Float64Array), []);
    });
  }
});
