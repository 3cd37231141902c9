/**
 * cuda.fp16.hrsqrt rounds once, as Numba's (numba/cuda/cuda_fp16.hpp: the f32 reciprocal square root of
 * the f16 value, converted once with cvt.rn.f16.f32): for every positive f16 input the result is
 * 1 / Math.sqrt(x) computed in f64 and rounded once to f16, on the g++ emulation of the generated C++ and
 * on the simulator. (Rounding sqrt to f16 first and then the reciprocal, as before, differed on about a
 * quarter of the inputs.)
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { cuda, f16round, Float16Array } from "cudascript";
import type { CorpusCase } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda, Float16Array } from "cudascript";
export const hrsqrt = cuda.jit((x: Float16Array, out: Float16Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = cuda.fp16.hrsqrt(x[i]);
});
`;

/** Every positive finite f16 (bit patterns 0x0001 … 0x7bff), then 0, -0, Infinity, NaN and a negative value. */
function inputs(): Float16Array {
  const bits = new Uint16Array(0x7bff + 5);
  for (let b = 1; b <= 0x7bff; b++) bits[b - 1] = b;
  bits.set([0x0000, 0x8000, 0x7c00, 0x7e00, 0xc000], 0x7bff);
  return new Float16Array(Array.from(bits, f16FromBits));
}

/** binary16 bits → value (Node 20/22 have no DataView#getFloat16). */
function f16FromBits(b: number): number {
  const sign = b & 0x8000 ? -1 : 1, exp = (b >> 10) & 0x1f, frac = b & 0x3ff;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (exp ? (1 + frac / 1024) * 2 ** (exp - 15) : (frac / 1024) * 2 ** -14);
}

function mismatches(x: ArrayLike<number>, got: ArrayLike<number>): string[] {
  const bad: string[] = [];
  for (let i = 0; i < x.length; i++) {
    const want = f16round(1 / Math.sqrt(x[i]!));
    if (!Object.is(got[i], want)) bad.push(`hrsqrt(${x[i]}) = ${got[i]}, expected ${want}`);
  }
  return bad.slice(0, 10);
}

const X = inputs();
const file = path.join(__dirname, "..", "..", "emulation", `__fp16_hrsqrt_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const gen = generateCuda(check.module);
const artifact = makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });

describe("cuda.fp16.hrsqrt rounds once to f16 on every backend", () => {
  it("the inputs cover every positive f16", () => {
    assert.equal(X.length, 0x7bff + 5);
    assert.deepEqual([X[0], X[0x3bff], X[0x7bfe]], [2 ** -24, 1, 65504]);
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  });

  it("the generated C++ (g++ emulation)", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const c: CorpusCase = {
      name: "hrsqrt",
      setup: () => ({ x: X.slice(), out: new Float16Array(X.length) }),
      launches: [{ kernel: "hrsqrt", grid: Math.ceil(X.length / 256), block: 256, args: ["x", "out"] }],
      reference: () => ({}),
    };
    const { outputs } = await emulateCase(gxx, "hrsqrt", gen, c, c.setup());
    assert.deepEqual(mismatches(X, outputs.get("out") as unknown as ArrayLike<number>), []);
  });

  it("the simulator", () => {
    const out = cuda.deviceArrayLike(X);
    kernel(artifact, "hrsqrt").launch(Math.ceil(X.length / 256), 256)(cuda.toDevice(X.slice()), out);
    assert.deepEqual(mismatches(X, out.copyToHost() as unknown as ArrayLike<number>), []);
  });
});
