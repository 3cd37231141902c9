/**
 * cuda.vectorize and cuda.reduce with no build step: under tsx their kernels compile from the TypeScript
 * at the first call, found by the call's position like a cuda.jit kernel's (host/from-source).
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { makeProject, REPO } from "./project";

const TSX_CLI = path.join(REPO, "node_modules", "tsx", "dist", "cli.mjs");

const MAIN_TS = `import { cuda, f32, i32 } from "cudascript";
const scale = cuda.vectorize((x: f32, k: f32): f32 => x * k);
const largest = cuda.reduce((a: i32, b: i32): i32 => (a > b ? a : b));
const scaled = scale(Float32Array.from([1, 2, 3]), 2) as Float32Array;
const top = largest(Int32Array.from([4, 9, -2, 7]), { init: -100 });
console.log(JSON.stringify({ scaled: [...scaled], top, kernels: [scale.kernelName, largest.kernelName] }));
`;

describe("ufuncs compile from source with no build step", () => {
  it("tsx runs a program whose cuda.vectorize and cuda.reduce kernels are compiled at their first call", () => {
    const p = makeProject({ "main.ts": MAIN_TS }, ["cudascript", "tsx"]);
    try {
      assert.deepEqual(p.runJson([TSX_CLI, "main.ts"]), { scaled: [2, 4, 6], top: 9, kernels: ["scale_vectorize", "largest_reduce"] });
    } finally {
      p.remove();
    }
  });
});
