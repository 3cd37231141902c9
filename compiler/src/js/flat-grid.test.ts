import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { KernelChecker } from "../checker/checker";
import { planFlatGrid } from "./flat-grid";

/** For each kernel: "no" when it cannot run as one flat loop, else "flat" and the bound that stops it early. */
function plans(src: string): Record<string, string> {
  const checker = new KernelChecker();
  const file = path.join(__dirname, "__flat_grid_test.ts");
  checker.setFileText(file, `import { cuda, f32, i32, u32 } from "cudascript";\n${src}`);
  const r = checker.checkFile(file);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  return Object.fromEntries(
    r.module.kernels.map((k) => {
      const plan = planFlatGrid(k);
      const narrow = plan?.narrow;
      return [k.name, !plan ? "no" : !narrow ? "flat" : `flat < ${narrow.k === "shape" ? `${narrow.array.v.name}.length` : narrow.k === "var" ? narrow.v.name : narrow.k === "const" ? String(narrow.value) : narrow.k}`];
    }),
  );
}

describe("one flat loop over a 1-D grid (which plain kernels can use it)", () => {
  it("kernels that see only their grid index, and the bound of an 'if (i < X)' body", () => {
    assert.deepEqual(
      plans(`
export const guarded = cuda.jit((a: Float32Array, out: Float32Array) => { const i = cuda.grid(1); if (i < out.length) out[i] = a[i]; });
export const byParam = cuda.jit((a: Float32Array, n: i32) => { const i = cuda.grid(1); const j = i * 2; if (i < n) a[i] = j; });
export const byConst = cuda.jit((a: Float32Array) => { if (cuda.grid(1) < 100) a[cuda.grid(1)] = cuda.blockDim.x; });
export const unguarded = cuda.jit((a: Float32Array) => { const i = cuda.grid(1); a[i] = cuda.gridsize(1); });
export const withElse = cuda.jit((a: Float32Array) => { const i = cuda.grid(1); if (i < a.length) a[i] = 1; else a[0] = 2; });
export const effectFirst = cuda.jit((a: Float32Array) => { const i = cuda.grid(1); const v = a[0]; if (i < a.length) a[i] = v; });
export const unsignedBound = cuda.jit((a: Float32Array, n: u32) => { const i = cuda.grid(1); if (i < n) a[i] = 1; });
`),
      { guarded: "flat < out.length", byParam: "flat < n", byConst: "flat < 100", unguarded: "flat", withElse: "flat", effectFirst: "flat", unsignedBound: "flat" },
    );
  });

  it("a narrowed loop runs the declarations and the if's branch without its test, which its bound makes true", () => {
    const checker = new KernelChecker();
    const file = path.join(__dirname, "__flat_grid_test.ts");
    checker.setFileText(file, `import { cuda, i32 } from "cudascript";
export const k = cuda.jit((a: Float32Array, n: i32) => { const i = cuda.grid(1); const j = i * 2; if (i < n) { a[i] = j; a[i] += 1; } });
export const u = cuda.jit((a: Float32Array) => { const i = cuda.grid(1); if (i < a.length) a[i] = 1; else a[0] = 2; });`);
    const [k, u] = checker.checkFile(file).module.kernels;
    assert.deepEqual(planFlatGrid(k!)?.body.map((s) => s.k), ["decl", "decl", "assign", "assign"]);
    assert.equal(planFlatGrid(u!)?.body, u!.body, "not narrowed: the whole body");
  });

  it("not for kernels that read threadIdx or blockIdx, another axis, or call a device function", () => {
    assert.deepEqual(
      plans(`
export const tid = cuda.jit((a: Float32Array) => { const i = cuda.grid(1); a[i] = cuda.threadIdx.x; });
export const bid = cuda.jit((a: Float32Array) => { const i = cuda.grid(1); a[i] = cuda.blockIdx.x; });
export const lane = cuda.jit((a: Float32Array) => { const i = cuda.grid(1); a[i] = cuda.laneid; });
export const twoD = cuda.jit((a: Float32Array) => { const [x, y] = cuda.grid(2); a[x] = y; });
const twice = cuda.device((x: f32): f32 => x * 2);
export const calls = cuda.jit((a: Float32Array) => { const i = cuda.grid(1); a[i] = twice(a[i]); });
`),
      { tid: "no", bid: "no", lane: "no", twoD: "no", calls: "no" },
    );
  });
});
