import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { KernelChecker } from "../checker/checker";
import { planInRange } from "./in-range";

/** For each kernel: the proven ranges as `param:base:min..max`, or "none" when nothing is proven. */
function plans(src: string): Record<string, string> {
  const checker = new KernelChecker();
  const file = path.join(__dirname, "__in_range_test.ts");
  checker.setFileText(file, `import { cuda, f32, i32, i64, Array2D } from "cudascript";\n${src}`);
  const r = checker.checkFile(file);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  return Object.fromEntries(
    r.module.kernels.map((k) => {
      const plan = planInRange(k);
      return [k.name, plan ? plan.ranges.map((x) => `${x.param.name}:${x.base}:${x.min}..${x.max}`).join(" ") : "none"];
    }),
  );
}

describe("bounds checks proven once per block (which accesses the simulator's proven body leaves unchecked)", () => {
  it("the thread's global index, spelled as cuda.grid(1) or blockIdx * blockDim + threadIdx, plus constants", () => {
    assert.deepEqual(
      plans(`
export const grid = cuda.jit((a: Float32Array, out: Float32Array) => { const i = cuda.grid(1); if (i < out.length) out[i] = a[i]; });
export const spelled = cuda.jit((a: Float32Array) => { const i = cuda.threadIdx.x + cuda.blockDim.x * cuda.blockIdx.x; a[i] = 1; });
export const neighbours = cuda.jit((a: Float32Array, out: Float32Array) => { const i = cuda.grid(1); const j = i + 2; out[i] = a[i - 1] + a[j] + a[1 + i]; });
export const tid = cuda.jit((a: Float32Array) => { const t = cuda.threadIdx.x; a[t + 3] = 0; });
// An array variable's accesses are lowered to accesses of the parameters it may hold: each is proven.
export const swapped = cuda.jit((a: Float32Array, b: Float32Array, k: i32) => { let src = a; if (k > 0) src = b; const i = cuda.grid(1); src[i] = 1; });
`),
      { grid: "out:grid:0..0 a:grid:0..0", spelled: "a:grid:0..0", neighbours: "out:grid:0..0 a:grid:-1..2", tid: "a:tid:3..3", swapped: "a:grid:0..0 b:grid:0..0" },
    );
  });

  it("leaves the checks where the index may change or the array is not a 1-D parameter", () => {
    assert.deepEqual(
      plans(`
export const reassigned = cuda.jit((a: Float32Array) => { let i = cuda.grid(1); i = i * 2; a[i] = 1; });
export const strided = cuda.jit((a: Float32Array) => { for (let i = cuda.grid(1); i < a.length; i += cuda.gridsize(1)) a[i] = 1; });
export const scaled = cuda.jit((a: Float32Array) => { const i = cuda.grid(1); a[2 * i] = 1; });
export const yAxis = cuda.jit((a: Float32Array) => { const i = cuda.threadIdx.y; a[i] = 1; });
export const shared = cuda.jit((a: Float32Array) => { const s = cuda.shared.array(256, f32); const t = cuda.threadIdx.x; s[t] = 1; a[0] = s[0]; });
export const matrix = cuda.jit((m: Array2D<f32>) => { const i = cuda.grid(1); m[i][0] = 1; });
export const wide = cuda.jit((a: Float32Array) => { const i = cuda.grid64(1); a[i] = 1; });
`),
      { reassigned: "none", strided: "none", scaled: "none", yAxis: "none", shared: "none", matrix: "none", wide: "none" },
    );
  });
});
