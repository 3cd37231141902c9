/**
 * `cudascript/kernels` through the real server: the kernels Run Kernel and the CodeLens offer are the
 * checker's — a kernel in a comment is not one, `gpu.jit` after `import { cuda as gpu }` and
 * `cs.cuda.jit` after `import * as cs` are — with IR-typed parameters, export names and `@run` tags.
 */
import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import type { CodeLens } from "vscode-languageserver-protocol";
import { find, LspClient, tempDir, uriOf } from "./harness";

interface Listing {
  name: string;
  exportedAs?: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  nameRange: { start: { line: number; character: number }; end: { line: number; character: number } };
  params: { name: string; kind: string; dtype: string; rank: number; type: string }[];
  docRange?: { start: { line: number; character: number }; end: { line: number; character: number } };
  run?: string;
}

const ALIASED = `import { cuda as gpu, f32, i32, Array2D } from "cudascript";

// export const commentedOut = gpu.jit((x: Float32Array) => { x[0] = 1; });
/*
export const alsoCommentedOut = gpu.jit((x: Float32Array) => { x[0] = 1; });
*/
const text = "export const inAString = cuda.jit(() => {})";

/**
 * out = a * x + y
 * @run grid=4096 block=256
 *      args=[scalar(2.5), random(1<<20, f32), random(1<<20, f32), zeros(1<<20, f32)]
 * @see docs
 */
export const saxpy = gpu.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = gpu.grid(1);
  if (i < out.length) out[i] = a * x[i] + y[i];
});

/** Fills an image. No @run tag: Run Kernel explains how to add one. */
const image = gpu.jit(function (w: i32, /* pixels */ counts: Array2D<i32>) {
  counts[0][0] = w;
});
export { image as fillImage };
`;

const NAMESPACE = `import * as cs from "cudascript";

/** @run grid=1 block=32 args=[zeros(32, u32)] */
export const lanes = cs.cuda.jit((out: Uint32Array) => {
  out[cs.cuda.threadIdx.x] = cs.cuda.laneid;
});
`;

/** \`cuda\` from another module is not CudaScript's: \`cuda.jit\` there is no kernel. */
const FOREIGN = `import { f32 } from "cudascript";
import { cuda } from "./not-cudascript";

export const lookalike = cuda.jit((a: f32) => {});
`;

describe("cudascript/kernels", () => {
  let client: LspClient;
  const dir = tempDir("cs-lsp-kernels-");
  const kernels = async (uri: string): Promise<Listing[]> => (await client.request<{ kernels: Listing[] }>("cudascript/kernels", { uri })).kernels;

  before(async () => {
    client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0 } } });
  });
  after(async () => {
    await client.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("lists the kernels of `import { cuda as gpu }`, not the ones in comments or strings", async () => {
    const uri = uriOf(path.join(dir, "aliased.ts"));
    await client.openAndWait(uri, ALIASED);
    const list = await kernels(uri);
    assert.deepEqual(
      list.map((k) => k.name),
      ["saxpy", "image"],
    );
    const [saxpy, image] = list;
    assert.equal(saxpy!.exportedAs, "saxpy");
    assert.deepEqual(saxpy!.range.start, find(ALIASED, "export const saxpy"));
    assert.deepEqual(saxpy!.nameRange, { start: find(ALIASED, "saxpy ="), end: find(ALIASED, "saxpy =", "saxpy".length) });
    assert.deepEqual(saxpy!.docRange?.start, find(ALIASED, "/**\n * out"));
    assert.equal(saxpy!.run, "grid=4096 block=256 args=[scalar(2.5), random(1<<20, f32), random(1<<20, f32), zeros(1<<20, f32)]");
    assert.deepEqual(
      saxpy!.params.map((p) => [p.name, p.kind, p.dtype, p.rank, p.type]),
      [
        ["a", "scalar", "f32", 0, "f32"],
        ["x", "array", "f32", 1, "Float32Array"],
        ["y", "array", "f32", 1, "Float32Array"],
        ["out", "array", "f32", 1, "Float32Array"],
      ],
    );
    // Exported under another name by `export { image as fillImage }`; "@run" inside a sentence is no tag.
    assert.equal(image!.exportedAs, "fillImage");
    assert.equal(image!.run, undefined);
    assert.ok(image!.docRange);
    assert.deepEqual(
      image!.params.map((p) => [p.name, p.kind, p.dtype, p.rank]),
      [
        ["w", "scalar", "i32", 0],
        ["counts", "ndarray", "i32", 2],
      ],
    );
    // The CodeLens sits on the same kernels.
    const lenses = ((await client.codeLens(uri)) ?? []) as CodeLens[];
    assert.deepEqual([...new Set(lenses.map((l) => (l.command?.arguments?.[0] as { kernel: string }).kernel))], ["saxpy", "image"]);
    assert.deepEqual(lenses.find((l) => l.command?.title === "▶ Run")?.range.start, saxpy!.range.start);
    // Debug beside Run on the kernel whose @run tag says how to launch it; none on the kernel without one.
    const titles = (kernel: string) => lenses.filter((l) => (l.command?.arguments?.[0] as { kernel: string }).kernel === kernel).map((l) => l.command?.title);
    assert.deepEqual(titles("saxpy").slice(0, 2), ["▶ Run", "Debug"]);
    assert.deepEqual(lenses.find((l) => l.command?.title === "Debug")?.command?.command, "cudascript.debugKernel");
    assert.ok(!titles("image").includes("Debug"));
    // Profile on every kernel: the client runs the profiler from the @run tag, or offers to add one
    assert.deepEqual(titles("saxpy").slice(0, 3), ["▶ Run", "Debug", "Profile"]);
    assert.deepEqual(titles("image").slice(0, 2), ["▶ Run", "Profile"]);
    assert.equal(lenses.find((l) => l.command?.title === "Profile")?.command?.command, "cudascript.profile");
  });

  it("lists `cs.cuda.jit` kernels of a namespace import, and files that are not open", async () => {
    const file = path.join(dir, "namespace.ts");
    fs.writeFileSync(file, NAMESPACE);
    const [lanes, ...rest] = await kernels(uriOf(file)); // never opened: read from disk
    assert.equal(rest.length, 0);
    assert.equal(lanes!.name, "lanes");
    assert.equal(lanes!.run, "grid=1 block=32 args=[zeros(32, u32)]");
    assert.deepEqual(lanes!.params.map((p) => [p.name, p.kind, p.dtype]), [["out", "array", "u32"]]);
  });

  it("follows the buffer: a kernel commented out while editing leaves the list", async () => {
    const uri = uriOf(path.join(dir, "editing.ts"));
    await client.openAndWait(uri, NAMESPACE);
    assert.equal((await kernels(uri)).length, 1);
    await client.changeAndWait(uri, NAMESPACE.replace("export const lanes", "// export const lanes"));
    // the rest of the commented kernel is now a syntax error; the kernel is gone either way
    assert.deepEqual(await kernels(uri), []);
  });

  it("does not list `cuda.jit` of a `cuda` that is not CudaScript's, nor anything in other files", async () => {
    const uri = uriOf(path.join(dir, "foreign.ts"));
    await client.openAndWait(uri, FOREIGN);
    assert.deepEqual(await kernels(uri), []);
    const plain = uriOf(path.join(dir, "plain.ts"));
    await client.openAndWait(plain, "export const x = 1;\n");
    assert.deepEqual(await kernels(plain), []);
  });
});
