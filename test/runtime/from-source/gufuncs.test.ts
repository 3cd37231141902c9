/**
 * cuda.guvectorize with no build step: under tsx its kernel compiles from the TypeScript at the first
 * call, found by the call's position like a cuda.jit kernel's (host/from-source), and a layout the
 * compiler refuses is reported with its code and position when the gufunc is first called.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { makeProject, REPO } from "./project";

const TSX_CLI = path.join(REPO, "node_modules", "tsx", "dist", "cli.mjs");

const MAIN_TS = `import { cuda, f32, type Array1D } from "cudascript";
const dot = cuda.guvectorize((a: Array1D<f32>, b: Array1D<f32>, out: Array1D<f32>): void => {
  let s: f32 = 0;
  for (let k = 0; k < a.length; k++) s += a[k] * b[k];
  out[0] = s;
}, "(n),(n)->()");
const rows = cuda.ndarray(Float32Array.from([1, 2, 3, 4, 5, 6]), [2, 3]);
const dots = dot(rows, Float32Array.from([1, 0, 2])) as Float32Array;
console.log(JSON.stringify({ dots: [...dots], kernel: dot.kernelName }));
`;

const BAD_TS = `import { cuda, f32, type Array1D } from "cudascript";
const copy = cuda.guvectorize((a: Array1D<f32>, out: Array1D<f32>): void => {
  for (let k = 0; k < a.length; k++) out[k] = a[k];
}, "(n)->(n");
try {
  copy(Float32Array.from([1]));
} catch (e) {
  console.log(JSON.stringify({ code: (e as { code?: string }).code, message: String((e as Error).message) }));
}
`;

describe("gufuncs compile from source with no build step", () => {
  it("tsx runs a program whose cuda.guvectorize kernel is compiled at its first call", () => {
    const p = makeProject({ "main.ts": MAIN_TS, "bad.ts": BAD_TS }, ["cudascript", "tsx"]);
    try {
      assert.deepEqual(p.runJson([TSX_CLI, "main.ts"]), { dots: [7, 16], kernel: "dot_guvectorize" });
      const bad = p.runJson([TSX_CLI, "bad.ts"]) as { code: string; message: string };
      assert.equal(bad.code, "CSR052");
      assert.match(bad.message, /bad\.ts:4:\d+ - error CS3008: bad layout "\(n\)->\(n"/);
    } finally {
      p.remove();
    }
  });
});
