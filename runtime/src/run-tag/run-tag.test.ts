import { test } from "node:test";
import * as assert from "node:assert/strict";
import { generateHostProgram, parseGenerator, parseRunTag, RunTagError, splitTopLevel, suggestRunTag, type KernelInfo, type KernelParam } from "./index";

// Kernels as the language server lists them (`cudascript/kernels`, tested in test/lsp/kernels.test.ts):
// this module no longer reads source text, it only turns a listing and its @run tag into a program.
const range = (line: number) => ({ start: { line, character: 0 }, end: { line: line + 3, character: 3 } });
const param = (name: string, kind: KernelParam["kind"], dtype: KernelParam["dtype"], rank: number, type: string): KernelParam => ({ name, kind, dtype, rank, type });
const SAXPY: KernelInfo = {
  name: "saxpy",
  exportedAs: "saxpy",
  range: range(8),
  nameRange: { start: { line: 8, character: 13 }, end: { line: 8, character: 18 } },
  docRange: range(2),
  run: "grid=4096 block=256 args=[scalar(2.5), random(1<<20, f32), random(1<<20, f32), zeros(1<<20, f32)]",
  params: [param("a", "scalar", "f32", 0, "f32"), param("x", "array", "f32", 1, "Float32Array"), param("y", "array", "f32", 1, "Float32Array"), param("out", "array", "f32", 1, "Float32Array")],
};
/** Exported as `fillImage` (`export { image as fillImage }`), no @run tag. */
const IMAGE: KernelInfo = {
  name: "image",
  exportedAs: "fillImage",
  range: range(14),
  nameRange: { start: { line: 14, character: 6 }, end: { line: 14, character: 11 } },
  params: [param("w", "scalar", "i32", 0, "i32"), param("counts", "ndarray", "i32", 2, "Array2D<i32>")],
};

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
  const [s, img] = [SAXPY, IMAGE];
  const spec = parseRunTag(s.run!);
  const prog = generateHostProgram(s, spec, { importPath: "../src/saxpy", displayPath: "src/saxpy.ts" });
  assert.match(prog, /import \{ cuda, f32, report \} from "cudascript";/);
  assert.match(prog, /import \{ saxpy \} from "\.\.\/src\/saxpy";/);
  assert.match(prog, /const arg0_a = 2\.5;/);
  assert.match(prog, /const arg1_x = fillRandom\(alloc\(\[\(1<<20\)\], f32\)\);/);
  assert.match(prog, /saxpy\.launch\(4096, 256\)\(arg0_a, arg1_x, arg2_y, arg3_out\);/);
  assert.match(prog, /\["out", "f32", \[\(1<<20\)\], arg3_out\],/);
  assert.match(prog, /report\(pass \? name : name \+ " \(unchanged\)", data, \{ shape \}\)/);
  const p2 = generateHostProgram(img, parseRunTag("grid=[4,3] block=[16,16] args=[scalar(48), zeros([64, 48])]"), { importPath: "./k", displayPath: "k.ts" });
  assert.match(p2, /import \{ fillImage as image \} from "\.\/k";/);
  assert.match(p2, /const arg1_counts = fillZeros\(alloc\(\[\(64\), \(48\)\], i32\)\);/);
  assert.match(p2, /image\.launch\(\[4,3\], \[16,16\]\)\(arg0_w, cuda\.ndarray\(arg1_counts, \[\(64\), \(48\)\] as \[number, number\]\)\);/);
});

test("generateHostProgram checks arguments against parameters", () => {
  const s = SAXPY;
  assert.throws(() => generateHostProgram(s, parseRunTag("grid=1 block=1 args=[scalar(1)]"), { importPath: "x", displayPath: "x" }), /gives 1 argument, the kernel takes 4 \(a, x, y, out\)/);
  assert.throws(
    () => generateHostProgram(s, parseRunTag("grid=1 block=1 args=[zeros(4), zeros(4), zeros(4), zeros(4)]"), { importPath: "x", displayPath: "x" }),
    /'a: f32'\) is a scalar/,
  );
  assert.throws(
    () => generateHostProgram(s, parseRunTag("grid=1 block=1 args=[1, zeros(4, i32), zeros(4), zeros(4)]"), { importPath: "x", displayPath: "x" }),
    /holds f32, not i32/,
  );
});

test("an N-D shape for a flat parameter passes the flat array and reports the shape", () => {
  const s = SAXPY;
  const prog = generateHostProgram(s, parseRunTag("grid=1 block=1 args=[1, zeros(4), zeros(4), zeros([2, 2])]"), { importPath: "x", displayPath: "x" });
  assert.match(prog, /saxpy\.launch\(1, 1\)\(arg0_a, arg1_x, arg2_y, arg3_out\);/);
  assert.match(prog, /\["out", "f32", \[\(2\), \(2\)\], arg3_out\],/);
});

test("suggestRunTag builds a tag from the parameters", () => {
  const [s, img] = [SAXPY, IMAGE];
  assert.equal(suggestRunTag(s), "/** @run grid=4096 block=256 args=[scalar(1.5), random(1<<20, f32), random(1<<20, f32), random(1<<20, f32)] */");
  assert.equal(suggestRunTag(img), "/** @run grid=[4, 4] block=[16, 16] args=[scalar(1024), zeros([64, 64], i32)] */");
});

test("a kernel its module does not export cannot be run on its own: the message says to export it", () => {
  const local: KernelInfo = { ...SAXPY, exportedAs: undefined };
  assert.throws(() => generateHostProgram(local, parseRunTag(SAXPY.run!), { importPath: "x", displayPath: "x" }), (e: unknown) => {
    assert.ok(e instanceof RunTagError);
    assert.match(e.message, /export the kernel to run it on its own \(export const saxpy = cuda\.jit\(…\)\)/);
    return true;
  });
});

test("suggestRunTag gives bool scalars a boolean", () => {
  const flag: KernelInfo = { ...IMAGE, params: [param("on", "scalar", "bool", 0, "bool"), param("out", "array", "u8", 1, "Uint8Array")] };
  assert.equal(suggestRunTag(flag), "/** @run grid=4096 block=256 args=[scalar(true), random(1<<20, u8)] */");
});
