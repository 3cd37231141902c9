/** The `cudascript/esbuild` plugin in a user's own esbuild build. */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { build } from "esbuild";
import { cudascriptPlugin } from "cudascript/esbuild";
import { REPO } from "../simulator/helpers";

describe("cudascript/esbuild", () => {
  it("compiles kernels at build time; the bundle runs them; other lines keep their numbers", async () => {
    // Inside the repository, so that the bundle's require("cudascript") resolves.
    const dir = fs.mkdtempSync(path.join(REPO, "test", "dist", "runtime", "__plugin-"));
    try {
      const src = path.join(REPO, "test", "runtime", `__plugin_${process.pid}.ts`);
      fs.writeFileSync(
        src,
        [
          'import { cuda, f32 } from "cudascript";',
          "export const scale = cuda.jit(",
          "  (x: Float32Array, k: f32) => {",
          "    const i = cuda.grid(1);",
          "    if (i < x.length) x[i] = x[i] * k;",
          "  },",
          ");",
          "export const shift = cuda.jit((x: Float32Array) => {",
          "  const i = cuda.grid(1);",
          "  x[i] = x[i + 1];",
          "}, { fastmath: false });",
          "export const where = () => new Error().stack;",
          "",
        ].join("\n"),
      );
      const artifacts: string[] = [];
      const out = path.join(dir, "bundle.js");
      try {
        await build({ entryPoints: [src], outfile: out, bundle: true, platform: "node", format: "cjs", external: ["cudascript"], logLevel: "silent", plugins: [cudascriptPlugin({ onArtifact: (f) => artifacts.push(f) })] });
      } finally {
        fs.rmSync(src, { force: true });
      }
      assert.deepEqual(artifacts, [src]);
      const mod = require(out) as { scale: { launch: Function }; shift: { launch: Function } };
      const x = Float32Array.of(1, 2, 3);
      mod.scale.launch(1, 32)(x, 2);
      assert.deepEqual([...x], [2, 4, 6]);
      assert.throws(() => mod.shift.launch(1, 4)(Float32Array.of(1, 2, 3, 4)), /CSR020: out-of-bounds read of array 'x' at .*__plugin_\d+\.ts:10:/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it("reports checker errors as esbuild errors with file and line", async () => {
    const src = path.join(REPO, "test", "runtime", `__plugin_err_${process.pid}.ts`);
    fs.writeFileSync(src, ['import { cuda } from "cudascript";', "export const k = cuda.jit((x: Float32Array) => {", '  x[0] = "a".length;', "});", ""].join("\n"));
    try {
      await assert.rejects(
        build({ entryPoints: [src], write: false, bundle: true, platform: "node", external: ["cudascript"], logLevel: "silent", plugins: [cudascriptPlugin()] }),
        (e: { errors: { text: string; location: { file: string; line: number } }[] }) => {
          assert.ok(e.errors.length >= 1);
          assert.match(e.errors[0]!.text, /^CS1001: /);
          assert.equal(e.errors[0]!.location.line, 3);
          return true;
        },
      );
    } finally {
      fs.rmSync(src, { force: true });
    }
  });
});
