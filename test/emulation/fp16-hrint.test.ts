/**
 * cuda.fp16.hrint (Numba's fp16 hrint: round half to even) on every backend: the g++ emulation of the
 * generated CUDA C++, the simulator, and an independent plain-TypeScript reference. Compared with
 * Object.is, so -0 and NaN count; NVRTC compiles the same code for the GPU.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { compileModuleSync, generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { cuda, Float16Array } from "cudascript";
import type { CorpusCase } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda, Float16Array } from "cudascript";
export const hrint = cuda.jit((x: Float16Array, out: Float16Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = cuda.fp16.hrint(x[i]);
});
`;

/** Halves (both parities, both signs), values near them, the ends of the f16 range, subnormals, ±0, ±Infinity, NaN. */
const EDGES = new Float16Array([
  0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5, -3.5, 0, -0, 0.4998, -0.4998, 0.5005, 2.4, -2.6, 1022.5, 1023.5, -1023.5,
  1024, 2047, 65504, -65504, 5.960464477539063e-8, -5.960464477539063e-8, Infinity, -Infinity, NaN,
]);

/** Round half to even, written independently of the backends: floor, then the fraction decides. */
function roundHalfEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const f = Math.floor(x), frac = x - f;
  const r = frac < 0.5 ? f : frac > 0.5 ? f + 1 : f % 2 === 0 ? f : f + 1;
  return r === 0 && (x < 0 || Object.is(x, -0)) ? -0 : r; // the sign of a zero result is x's, as rint's
}

function mismatches(x: ArrayLike<number>, got: ArrayLike<number>): string[] {
  const show = (v: number) => (Object.is(v, -0) ? "-0" : String(v));
  const bad: string[] = [];
  for (let i = 0; i < x.length; i++) {
    const want = roundHalfEven(x[i]!);
    if (!Object.is(got[i], want)) bad.push(`hrint(${show(x[i]!)}) = ${show(got[i]!)}, expected ${show(want)}`);
  }
  return bad;
}

const file = path.join(__dirname, "..", "..", "emulation", `__fp16_hrint_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const gen = generateCuda(check.module);
const artifact = makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });

describe("cuda.fp16.hrint rounds half to even on every backend", () => {
  it("the reference itself: halves go to the even neighbour, the sign of zero stays", () => {
    assert.deepEqual([0.5, 1.5, 2.5, -0.5, -2.5, -1.5].map(roundHalfEven), [0, 2, 2, -0, -2, -2]);
  });

  it("the checker accepts it; NVRTC compiles the generated code for the GPU", (t) => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
    if (!nvrtcOrSkip(t)) return;
    const r = compileModuleSync(check.module, { cache: false });
    assert.ok(r.ok, r.diagnostics.map((d) => d.message).join("\n"));
  });

  it("the generated C++ (g++ emulation) rounds half to even", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const c: CorpusCase = {
      name: "hrint",
      setup: () => ({ x: EDGES.slice(), out: new Float16Array(EDGES.length) }),
      launches: [{ kernel: "hrint", grid: 1, block: 64, args: ["x", "out"] }],
      reference: () => ({}),
    };
    const { outputs } = await emulateCase(gxx, "hrint", gen, c, c.setup());
    assert.deepEqual(mismatches(EDGES, outputs.get("out") as unknown as ArrayLike<number>), []);
  });

  it("the simulator rounds half to even", () => {
    const d = cuda.toDevice(EDGES.slice());
    const out = cuda.deviceArrayLike(EDGES);
    kernel(artifact, "hrint").launch(1, 64)(d, out);
    assert.deepEqual(mismatches(EDGES, out.copyToHost() as unknown as ArrayLike<number>), []);
  });
});
