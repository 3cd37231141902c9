import { test } from "node:test";
import * as assert from "node:assert/strict";
import { findKernels, generateHostProgram, parseGenerator, parseRunTag, runTagText, RunTagError, splitTopLevel, suggestRunTag } from "./runTag";

const SAXPY = `import { cuda, f32, i32, Array2D } from "cudascript";

/**
 * out = a * x + y
 * @run grid=4096 block=256
 *      args=[scalar(2.5), random(1<<20, f32), random(1<<20, f32), zeros(1<<20, f32)]
 * @see docs
 */
export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a * x[i] + y[i];
});

const image = cuda.jit(function (w: i32, /* pixels */ counts: Array2D<i32>) {
  counts[0][0] = w;
});
`;

test("findKernels: names, lines, export, parameters, JSDoc", () => {
  const ks = findKernels(SAXPY);
  assert.equal(ks.length, 2);
  const [s, img] = ks;
  assert.equal(s!.name, "saxpy");
  assert.equal(s!.line, 8);
  assert.equal(s!.exported, true);
  assert.deepEqual(
    s!.params.map((p) => [p.name, p.kind, p.dtype, p.rank]),
    [["a", "scalar", "f32", 0], ["x", "array", "f32", 1], ["y", "array", "f32", 1], ["out", "array", "f32", 1]],
  );
  assert.equal(s!.docLine, 2);
  assert.equal(img!.name, "image");
  assert.equal(img!.exported, false);
  assert.equal(img!.doc, undefined);
  assert.deepEqual(img!.params.map((p) => [p.name, p.kind, p.dtype, p.rank]), [["w", "scalar", "i32", 0], ["counts", "ndarray", "i32", 2]]);
});

test("runTagText reads a multi-line tag up to the next tag", () => {
  const [s] = findKernels(SAXPY);
  assert.equal(runTagText(s!.doc), "grid=4096 block=256 args=[scalar(2.5), random(1<<20, f32), random(1<<20, f32), zeros(1<<20, f32)]");
  assert.equal(runTagText(" plain comment "), undefined);
  assert.equal(runTagText(" Scales a vector. No @run tag: Run Kernel explains how to add one. "), undefined);
  assert.equal(runTagText(" @run grid=1 block=32 "), "grid=1 block=32");
});

test("parseRunTag: grid, block, generators, 2-D shapes", () => {
  const spec = parseRunTag("grid=(4, 3) block=[16,16] args=[2, zeros([64, 48], i32), range(10), random(n * 2)] sharedMem=1024");
  assert.equal(spec.grid, "[4, 3]");
  assert.equal(spec.block, "[16,16]");
  assert.equal(spec.sharedMem, "1024");
  assert.deepEqual(
    spec.args.map((g) => [g.kind, g.shape, g.dtype, g.value]),
    [["scalar", undefined, undefined, "2"], ["zeros", ["64", "48"], "i32", undefined], ["range", ["10"], undefined, undefined], ["random", ["n * 2"], undefined, undefined]],
  );
  assert.equal(parseRunTag("grid=Math.ceil(N / 256) block=256").grid, "Math.ceil(N / 256)");
});

test("parseRunTag errors say what to write", () => {
  assert.throws(() => parseRunTag("block=256"), /needs grid=/);
  assert.throws(() => parseRunTag("grid=1 block=1 args=[ones(3)]"), /unknown generator 'ones'.*random\(n, dtype\)/);
  assert.throws(() => parseRunTag("grid=1 block=1 args=[zeros(3, float)]"), /unknown dtype 'float'/);
  assert.throws(() => parseRunTag("grid=1 block=1 threads=3"), /unknown @run field 'threads'/);
  assert.throws(() => parseGenerator("zeros([1,2,3,4])"), RunTagError);
});

test("splitTopLevel keeps generics and shifts together", () => {
  assert.deepEqual(splitTopLevel("a: f32, b: Array2D<i32>, c: Float32Array"), ["a: f32", "b: Array2D<i32>", "c: Float32Array"]);
  assert.deepEqual(splitTopLevel("random(1<<20, f32), zeros([2, 3])"), ["random(1<<20, f32)", "zeros([2, 3])"]);
});

test("generateHostProgram imports the kernel, launches once, reports arrays", () => {
  const [s, img] = findKernels(SAXPY);
  const spec = parseRunTag(runTagText(s!.doc)!);
  const prog = generateHostProgram(s!, spec, { importPath: "../src/saxpy", displayPath: "src/saxpy.ts" });
  assert.match(prog, /import \{ cuda, f32, report \} from "cudascript";/);
  assert.match(prog, /import \{ saxpy \} from "\.\.\/src\/saxpy";/);
  assert.match(prog, /const arg0_a = 2\.5;/);
  assert.match(prog, /const arg1_x = fillRandom\(alloc\(\[\(1<<20\)\], f32\)\);/);
  assert.match(prog, /saxpy\.launch\(4096, 256\)\(arg0_a, arg1_x, arg2_y, arg3_out\);/);
  assert.match(prog, /\["out", "f32", \[\(1<<20\)\], arg3_out\],/);
  assert.match(prog, /report\(pass \? name : name \+ " \(unchanged\)", data, \{ shape \}\)/);
  const p2 = generateHostProgram(img!, parseRunTag("grid=[4,3] block=[16,16] args=[scalar(48), zeros([64, 48])]"), { importPath: "./k", displayPath: "k.ts" });
  assert.match(p2, /const arg1_counts = fillZeros\(alloc\(\[\(64\), \(48\)\], i32\)\);/);
  assert.match(p2, /image\.launch\(\[4,3\], \[16,16\]\)\(arg0_w, cuda\.ndarray\(arg1_counts, \[\(64\), \(48\)\] as \[number, number\]\)\);/);
});

test("generateHostProgram checks arguments against parameters", () => {
  const [s] = findKernels(SAXPY);
  assert.throws(() => generateHostProgram(s!, parseRunTag("grid=1 block=1 args=[scalar(1)]"), { importPath: "x", displayPath: "x" }), /gives 1 argument, the kernel takes 4 \(a, x, y, out\)/);
  assert.throws(
    () => generateHostProgram(s!, parseRunTag("grid=1 block=1 args=[zeros(4), zeros(4), zeros(4), zeros(4)]"), { importPath: "x", displayPath: "x" }),
    /'a: f32'\) is a scalar/,
  );
  assert.throws(
    () => generateHostProgram(s!, parseRunTag("grid=1 block=1 args=[1, zeros(4, i32), zeros(4), zeros(4)]"), { importPath: "x", displayPath: "x" }),
    /holds f32, not i32/,
  );
});

test("an N-D shape for a flat parameter passes the flat array and reports the shape", () => {
  const [s] = findKernels(SAXPY);
  const prog = generateHostProgram(s!, parseRunTag("grid=1 block=1 args=[1, zeros(4), zeros(4), zeros([2, 2])]"), { importPath: "x", displayPath: "x" });
  assert.match(prog, /saxpy\.launch\(1, 1\)\(arg0_a, arg1_x, arg2_y, arg3_out\);/);
  assert.match(prog, /\["out", "f32", \[\(2\), \(2\)\], arg3_out\],/);
});

test("suggestRunTag builds a tag from the parameters", () => {
  const [s, img] = findKernels(SAXPY);
  assert.equal(suggestRunTag(s!), "/** @run grid=4096 block=256 args=[scalar(1.5), random(1<<20, f32), random(1<<20, f32), random(1<<20, f32)] */");
  assert.equal(suggestRunTag(img!), "/** @run grid=[4, 4] block=[16, 16] args=[scalar(1024), zeros([64, 64], i32)] */");
});
