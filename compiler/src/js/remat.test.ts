import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { KernelChecker } from "../checker/checker";
import { Normalizer, syncFunctions, type NStmt } from "./normalize";
import { analyzeUniformity } from "./uniform";
import { pruneRematerialized, rematerializable } from "./remat";
import type * as IR from "../ir/nodes";

/** The kernel `k` of `src`, normalised as the fission emitter sees it. */
function normalized(src: string): { body: readonly NStmt[]; params: readonly IR.Var[] } {
  const checker = new KernelChecker();
  const file = path.join(__dirname, "__remat_test.ts");
  checker.setFileText(file, `import { cuda, f32, i32 } from "cudascript";\n${src}`);
  const r = checker.checkFile(file);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  const k = r.module.kernels.find((f) => f.name === "k")!;
  const fns = new Map(r.module.deviceFunctions.map((f) => [f.id, f]));
  const norm = new Normalizer(k, fns, syncFunctions(r.module.deviceFunctions)).run();
  return { body: norm.body, params: k.params };
}

const names = (m: ReadonlyMap<IR.Var, IR.Expr>) => [...m.keys()].map((v) => v.name);

describe("rematerialisation analysis (locals a piece recomputes instead of storing per thread)", () => {
  it("takes immutable locals computed from thread indices, launch constants and unassigned parameters, in declaration order", () => {
    const { body, params } = normalized(`
export const k = cuda.jit((x: Float32Array, n: i32) => {
  const t = cuda.threadIdx.x;
  const i = cuda.blockIdx.x * cuda.blockDim.x + t;
  const j = i + n;
  let moved = t;
  moved += 1;
  const v = x[t];
  const w = n * 2;
  cuda.syncthreads();
  if (j < x.length) x[j] = v + moved + w;
});`);
    const uni = analyzeUniformity(body, params);
    const remat = rematerializable(body, uni.uniformVars);
    // moved is assigned again, v reads memory, w is block-uniform (computed once at block level).
    assert.deepEqual(names(remat), ["t", "i", "j"]);
  });

  it("drops synchronisation operands, then every local that depends on a dropped one", () => {
    const { body, params } = normalized(`
export const k = cuda.jit((x: Int32Array) => {
  const t = cuda.threadIdx.x;
  const lane = t & 31;
  const twice = lane * 2;
  const other = t + 1;
  const s = cuda.shflDownSync(0xffffffff, lane, 1);
  x[t] = s + twice + other;
});`);
    const uni = analyzeUniformity(body, params);
    const remat = rematerializable(body, uni.uniformVars);
    assert.deepEqual(names(remat), ["t", "lane", "twice", "other"]);
    const lane = [...remat.keys()].find((v) => v.name === "lane")!;
    pruneRematerialized(remat, new Set([lane]));
    assert.deepEqual(names(remat), ["t", "other"]);
  });
});
