/** cuda.random draws in the front end, the checker and the CUDA C++ generator. */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkSources, codes } from "../../../test/dist/support/check-sources";
import { generateCuda } from "../cuda/generate";
import { isPure } from "../ir/visit";
import { uniformExpr } from "../js/uniform";
import { forEachRootExpr, visitExpr } from "../ir/visit";
import type { Expr } from "../ir/nodes";

const HEAD = `import { cuda, f32, i32, i64, u64, Array2D, type Xoroshiro128pStates } from "cudascript";\n`;
const check = (body: string) => checkSources({ "k.ts": HEAD + body });

function draws(r: ReturnType<typeof check>): Expr[] {
  const out: Expr[] = [];
  for (const k of r.module.kernels) forEachRootExpr(k.body, (root) => visitExpr(root, (e) => void (e.k === "random" && out.push(e))));
  return out;
}

describe("cuda.random in kernels", () => {
  it("a draw is an IR 'random' node on the state array: i32, i64 and u64 (as i64) indices, f32/f64 results; never pure", () => {
    const r = check(`
export const k = cuda.jit((states: Xoroshiro128pStates, alias: Array2D<u64>, out: Float64Array, j: i64, u: u64) => {
  const i = cuda.grid(1);
  out[0] = cuda.random.xoroshiro128pUniformFloat32(states, i) + cuda.random.xoroshiro128pNormalFloat64(alias, j) + cuda.random.xoroshiro128pUniformFloat64(states, u);
});`);
    assert.deepEqual(codes(r), []);
    const d = draws(r);
    assert.deepEqual(d.map((e) => e.k === "random" && [e.draw, e.type.dtype, (e.index.type as { dtype: string }).dtype]), [
      ["xoroshiro128pUniformFloat32", "f32", "i32"],
      ["xoroshiro128pNormalFloat64", "f64", "i64"],
      ["xoroshiro128pUniformFloat64", "f64", "i64"],
    ]);
    for (const e of d) {
      assert.equal(isPure(e), false, "a draw has a side effect (it advances the state)");
      assert.equal(uniformExpr(e, new Set()), false, "a draw is never uniform");
    }
  });

  it("a barrier under a condition on a draw is divergent (CS5001): draws are thread-dependent", () => {
    const r = check(`
export const k = cuda.jit((states: Xoroshiro128pStates, out: Float32Array) => {
  const i = cuda.grid(1);
  if (cuda.random.xoroshiro128pUniformFloat32(states, i) < 0.5) cuda.syncthreads();
  out[0] = 1;
});`);
    assert.deepEqual(codes(r), ["CS5001@4"]);
  });

  it("not a state array is CS2027, a float or bool index CS2028, an unknown draw CS1014 with a suggestion", () => {
    const r = check(`
const C = new Float32Array([1, 2]);
export const k = cuda.jit((states: Xoroshiro128pStates, flat: BigUint64Array, wide: Array2D<f32>, out: Float32Array, x: f32) => {
  const c = cuda.const.arrayLike(C);
  out[0] = cuda.random.xoroshiro128pUniformFloat32(flat, 0);
  out[0] = cuda.random.xoroshiro128pUniformFloat32(wide, 0);
  out[0] = cuda.random.xoroshiro128pUniformFloat32(c, 0);
  out[0] = cuda.random.xoroshiro128pUniformFloat32(x, 0);
  out[0] = cuda.random.xoroshiro128pUniformFloat32(states, x);
  out[0] = cuda.random.xoroshiro128pUniformFloat32(states, true);
  out[0] = cuda.random.xoroshiro128pUniformFloat32(states, -1.5);
  out[0] = cuda.random.xoroshiro128p_normal_float32(states, 0);
  out[0] = cuda.random.xoroshiro128pUniformFloat32(states);
});`);
    assert.deepEqual(codes(r), ["CS2027@5", "CS2027@6", "CS2027@7", "CS2027@8", "CS2028@9", "CS2028@10", "CS2028@11", "CS1014@12", "CS2006@13"]);
    assert.match(r.diagnostics[0]!.message, /not a BigUint64Array: .*Xoroshiro128pStates.*createXoroshiro128pStates/);
    assert.match(r.diagnostics[4]!.message, /not f32: write Math\.floor\(x\) \| 0/);
    assert.match(r.diagnostics[7]!.message, /did you mean cuda\.random\.xoroshiro128pNormalFloat32\?/);
  });

  it("CUDA C++: the generator is in the module only when a kernel draws, and a draw passes its row's address", () => {
    const plain = check(`export const k = cuda.jit((out: Float32Array) => { out[0] = 1; });`);
    assert.doesNotMatch(generateCuda(plain.module).source, /cs_xoroshiro128p/);
    const r = check(`
export const k = cuda.jit((states: Xoroshiro128pStates, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = cuda.random.xoroshiro128pNormalFloat32(states, i);
});`);
    const src = generateCuda(r.module).source;
    assert.match(src, /static __device__ __forceinline__ __attribute__\(\(unused\)\) unsigned long long cs_xoroshiro128p_next/);
    assert.match(src, /out\[i\] = cs_xoroshiro128p_normal_f32\(&states\[i \* states_stride0\], 0\);/, "row i at its element stride");
  });
});
