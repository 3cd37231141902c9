/**
 * Math edge cases where the generated C++ once disagreed with JavaScript, run on every backend: the g++
 * emulation of the generated CUDA C++ (the GPU's code on the CPU), the simulator, and plain
 * JavaScript as the reference. Compared with Object.is, so -0 and NaN count.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { compileModuleSync, generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { cuda } from "cudascript";
import type { CorpusCase, HostTypedArray } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda } from "cudascript";
export const roundF32 = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = Math.round(x[i]);
});
export const roundF64 = cuda.jit((x: Float64Array, out: Float64Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = Math.round(x[i]);
});
`;

const shared = [0, -0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, -0.7, 0.7, -1e-10, 1e-10, NaN, Infinity, -Infinity, 5e-324, -5e-324];
const F32_EDGES = new Float32Array([
  ...shared,
  0.49999997, -0.49999997, -0.50000006, 2 ** 23 + 1, -(2 ** 23 + 1), 2 ** 23 - 0.5, -(2 ** 23 - 0.5), 2 ** 24, 1e-45, -1e-45, 3.4e38, -3.4e38, 1.0000001, -1.0000001,
]);
const F64_EDGES = new Float64Array([
  ...shared,
  0.49999999999999994, -0.49999999999999994, 2 ** 52 + 1, 2 ** 52 + 3, -(2 ** 52 + 1), 2 ** 53 - 1, 2 ** 52 - 0.5, -(2 ** 52 - 0.5), 2 ** 53, 1.7e308, -1.7e308, 4503599627370495.5,
]);

const file = path.join(__dirname, "..", "..", "emulation", `__math_edges_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const gen = generateCuda(check.module);
const artifact = makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });

function casesFor(kernelName: string, x: Float32Array | Float64Array): CorpusCase {
  return {
    name: kernelName,
    setup: () => ({ x: x.slice(), out: new (x.constructor as Float32ArrayConstructor)(x.length) }),
    launches: [{ kernel: kernelName, grid: 1, block: 64, args: ["x", "out"] }],
    reference: () => ({ out: x.map((v) => Math.round(v)) }),
  };
}

function mismatches(x: ArrayLike<number>, got: ArrayLike<number>): string[] {
  const bad: string[] = [];
  for (let i = 0; i < x.length; i++) {
    const want = Math.round(x[i]!);
    if (!Object.is(got[i], want)) bad.push(`Math.round(${Object.is(x[i], -0) ? "-0" : x[i]}) = ${Object.is(got[i], -0) ? "-0" : got[i]}, JavaScript ${Object.is(want, -0) ? "-0" : want}`);
  }
  return bad;
}

describe("Math.round agrees with JavaScript on every backend, edge cases included", () => {
  it("the checker accepts the kernels; NVRTC compiles the same code for the GPU", (t) => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error"), []);
    assert.match(gen.source, /cs_round\(x\[i\]\)/);
    if (!nvrtcOrSkip(t)) return;
    const r = compileModuleSync(check.module, { cache: false });
    assert.ok(r.ok, r.diagnostics.map((d) => d.message).join("\n"));
  });

  for (const [name, x] of [["roundF32", F32_EDGES], ["roundF64", F64_EDGES]] as const) {
    it(`${name}: the generated C++ (g++ emulation) equals JavaScript's Math.round`, async (t) => {
      const gxx = findGxx();
      if (!gxx) return t.skip("g++ not found");
      const c = casesFor(name, x);
      const { outputs } = await emulateCase(gxx, "edges", gen, c, c.setup());
      assert.deepEqual(mismatches(x, outputs.get("out") as Float64Array), []);
    });

    it(`${name}: the simulator equals JavaScript's Math.round`, () => {
      const d = cuda.toDevice(x.slice());
      const out = cuda.deviceArrayLike(x);
      kernel(artifact, name).launch(1, 64)(d, out);
      assert.deepEqual(mismatches(x, out.copyToHost() as Float32Array | Float64Array), []);
    });
  }
});
