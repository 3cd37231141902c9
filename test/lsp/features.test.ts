/**
 * CodeLens, cross-file re-checks (buffers and disk), generated code, debouncing, and the server's
 * behaviour on empty, half-typed, foreign and unknown documents — all through the real server.
 */
import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { corpusFiles, find, LspClient, pairs, tempDir, uriOf } from "./harness";
import { OCCUPANCY_FIXTURE } from "./occupancy-fixture";

interface GeneratedCode {
  text: string;
  languageId: string;
  lineMap: { generatedLine: number; sourceLine: number }[];
  kernelLine?: number;
  error?: string;
}

describe("CodeLens", () => {
  let client: LspClient;
  before(async () => {
    client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0 } } });
  });
  after(async () => {
    await client.stop();
  });

  for (const file of corpusFiles("valid")) {
    it(`valid/${path.basename(file)}: five lenses above each kernel`, async () => {
      const text = fs.readFileSync(file, "utf8");
      const uri = uriOf(file);
      await client.openAndWait(uri, text);
      const lenses = (await client.codeLens(uri)) ?? [];
      await client.close(uri);
      const kernels = [...text.matchAll(/^export const (\w+) = cuda\.jit\(/gm)].map((m) => ({ name: m[1]!, line: text.slice(0, m.index).split("\n").length - 1 }));
      // A file of ufuncs alone (cuda.vectorize / cuda.reduce, whose kernels the compiler makes) has no cuda.jit kernel to lens.
      if (kernels.length === 0) return assert.match(text, /cuda\.(vectorize|reduce|guvectorize)\(/, "a valid corpus file without cuda.jit kernels defines ufuncs");
      assert.equal(lenses.length, kernels.length * 5);
      for (const k of kernels) {
        const mine = lenses.filter((l) => (l.command?.arguments?.[0] as { kernel: string }).kernel === k.name);
        assert.deepEqual(
          mine.map((l) => l.command?.command),
          ["cudascript.runKernel", "cudascript.profile", "cudascript.showCuda", "cudascript.showPtx", "cudascript.showOccupancy"],
        );
        for (const l of mine) {
          assert.equal(l.range.start.line, k.line, `${k.name} lens line`);
          assert.deepEqual(l.command?.arguments, [{ uri, kernel: k.name }]);
        }
        assert.equal(mine[0]!.command?.title, "▶ Run");
        assert.equal(mine[1]!.command?.title, "Profile");
        assert.equal(mine[2]!.command?.title, "Show CUDA C++");
        assert.equal(mine[3]!.command?.title, "Show PTX");
        assert.match(mine[4]!.command?.title ?? "", /^occupancy ≤\d+(\.\d)?% @\d+ threads · regs unknown \(sm_80\)$/);
      }
    });
  }

  it("occupancy summaries of the hand-worked fixture", async () => {
    const uri = "untitled:lens.ts";
    await client.openAndWait(uri, OCCUPANCY_FIXTURE);
    const titles = ((await client.codeLens(uri)) ?? []).filter((l) => l.command?.command === "cudascript.showOccupancy").map((l) => l.command?.title);
    assert.deepEqual(titles, [
      "occupancy ≤50% @256 threads · regs unknown (sm_80)",
      "occupancy ≤100% @256 threads · regs unknown (sm_80)",
      "occupancy ≤56.3% @128 threads · regs unknown (sm_80)",
    ]);
    await client.close(uri);
  });

  it("a kernel's @run tag sets the block its occupancy lens shows, unless the file launches it with a block of its own", async () => {
    const uri = "untitled:run-tag-lens.ts";
    await client.openAndWait(
      uri,
      `import { cuda } from "cudascript";
/** @run grid=4 block=64 args=[zeros(256, f32)] */
export const tagged = cuda.jit((a: Float32Array) => { a[cuda.grid(1)] = 1; });
/** @run grid=[2, 2] block=[8, 4] args=[zeros(64, f32)] */
export const tagged2d = cuda.jit((a: Float32Array) => { a[cuda.grid(1)] = 1; });
/** @run grid=4 block=(N >> 2) args=[zeros(256, f32)] */
export const byExpression = cuda.jit((a: Float32Array) => { a[cuda.grid(1)] = 1; });
/** @run grid=4 block=64 args=[zeros(256, f32)] */
export const launchedHere = cuda.jit((a: Float32Array) => { a[cuda.grid(1)] = 1; });
export function main(): void {
  launchedHere.launch(2, 128)(new Float32Array(256));
}
`,
    );
    const titles = ((await client.codeLens(uri)) ?? []).filter((l) => l.command?.command === "cudascript.showOccupancy").map((l) => l.command?.title);
    assert.deepEqual(
      titles.map((t) => /@(\d+) threads/.exec(t ?? "")?.[1]),
      ["64", "32", "256", "128"],
      JSON.stringify(titles),
    );
    await client.close(uri);
  });

  it("no lenses in files without kernels; none when turned off", async () => {
    const uri = "untitled:host.ts";
    await client.openAndWait(uri, "export const x = 1;\n");
    assert.deepEqual(await client.codeLens(uri), []);
    await client.close(uri);
  });
});

describe("cross-file re-check", () => {
  let client: LspClient;
  const dir = tempDir("cs-lsp-xfile-");
  const a = path.join(dir, "lib.ts");
  const barrel = path.join(dir, "index.ts");
  const b = path.join(dir, "kernels.ts");
  const c = path.join(dir, "via-barrel.ts");
  const libV1 = `import { cuda, f32 } from "cudascript";
export const SCALE = 2;
export const scale = cuda.device((x: f32, k: f32): f32 => x * k);
`;
  const libV2 = libV1.replace("(x: f32, k: f32): f32 => x * k", "(x: f32, k: f32, bias: f32): f32 => x * k + bias");
  const kernels = `import { cuda } from "cudascript";
import { SCALE, scale } from "./lib";

export const k = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length && i < x.length) out[i] = scale(x[i], SCALE);
});
`;
  const viaBarrel = kernels.replace('from "./lib"', 'from "./index"');

  before(async () => {
    fs.writeFileSync(a, libV1);
    fs.writeFileSync(barrel, 'export { SCALE, scale } from "./lib";\n');
    fs.writeFileSync(b, kernels);
    fs.writeFileSync(c, viaBarrel);
    client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0 } } });
  });
  after(async () => {
    await client.stop();
  });

  it("editing the imported device function's signature (unsaved) re-checks the importers", async () => {
    assert.deepEqual(await client.openAndWait(uriOf(b), kernels), []);
    assert.deepEqual(await client.openAndWait(uriOf(c), viaBarrel), []);
    await client.openAndWait(uriOf(a), libV1);
    const sinceB = client.publishes(uriOf(b)).length;
    const sinceC = client.publishes(uriOf(c)).length;
    await client.change(uriOf(a), libV2);
    const pb = await client.waitForDiagnostics(uriOf(b), (p) => p.diagnostics.length > 0, { since: sinceB });
    assert.deepEqual(pairs(pb.diagnostics), ["CS2006:6"]);
    assert.match(String(pb.diagnostics[0]!.message), /scale/);
    const pc = await client.waitForDiagnostics(uriOf(c), (p) => p.diagnostics.length > 0, { since: sinceC });
    assert.deepEqual(pairs(pc.diagnostics), ["CS2006:6"], "through the barrel's re-export");
    // And back.
    const again = client.publishes(uriOf(b)).length;
    await client.change(uriOf(a), libV1);
    await client.waitForDiagnostics(uriOf(b), (p) => p.diagnostics.length === 0, { since: again });
  });

  it("editing an imported constant re-checks the importers", async () => {
    const since = client.publishes(uriOf(b)).length;
    await client.change(uriOf(a), libV1.replace("export const SCALE = 2;", "export let SCALE = 2;"));
    const p = await client.waitForDiagnostics(uriOf(b), (x) => x.diagnostics.length > 0, { since });
    assert.deepEqual(pairs(p.diagnostics), ["CS1010:6"]);
    const since2 = client.publishes(uriOf(b)).length;
    await client.change(uriOf(a), libV1);
    await client.waitForDiagnostics(uriOf(b), (x) => x.diagnostics.length === 0, { since: since2 });
  });

  it("closing the edited file falls back to the disk; a watched-file change re-checks", async () => {
    const since = client.publishes(uriOf(b)).length;
    await client.change(uriOf(a), libV2);
    await client.waitForDiagnostics(uriOf(b), (x) => x.diagnostics.length > 0, { since });
    const since2 = client.publishes(uriOf(b)).length;
    await client.close(uriOf(a)); // unsaved change dropped: disk has v1
    await client.waitForDiagnostics(uriOf(b), (x) => x.diagnostics.length === 0, { since: since2 });
    fs.writeFileSync(a, libV2); // saved elsewhere
    const since3 = client.publishes(uriOf(b)).length;
    await client.watchedFilesChanged([{ uri: uriOf(a), type: 2 }]);
    const p = await client.waitForDiagnostics(uriOf(b), (x) => x.diagnostics.length > 0, { since: since3 });
    assert.deepEqual(pairs(p.diagnostics), ["CS2006:6"]);
    fs.writeFileSync(a, libV1);
    const since4 = client.publishes(uriOf(b)).length;
    await client.watchedFilesChanged([{ uri: uriOf(a), type: 2 }]);
    await client.waitForDiagnostics(uriOf(b), (x) => x.diagnostics.length === 0, { since: since4 });
  });

  it("a created file resolves an import that was missing", async () => {
    const d = path.join(dir, "uses-new.ts");
    const text = `import { cuda } from "cudascript";
import { twice } from "./new-lib";
export const k2 = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = twice(x[i]);
});
`;
    const first = await client.openAndWait(uriOf(d), text);
    assert.ok(first.length > 0, "unresolved import is reported");
    fs.writeFileSync(path.join(dir, "new-lib.ts"), 'import { cuda, f32 } from "cudascript";\nexport const twice = cuda.device((v: f32): f32 => v * 2);\n');
    const since = client.publishes(uriOf(d)).length;
    await client.watchedFilesChanged([{ uri: uriOf(path.join(dir, "new-lib.ts")), type: 1 }]);
    await client.waitForDiagnostics(uriOf(d), (x) => x.diagnostics.length === 0, { since });
  });

  it("logged no internal error", () => {
    assert.deepEqual(client.internalErrors(), []);
  });
});

describe("generated code", () => {
  let client: LspClient;
  const compiler = require("@cudascript/compiler") as Record<string, unknown>;
  const noGenerator = typeof compiler.generateCuda !== "function" ? "the compiler does not export generateCuda yet" : false;
  const uri = uriOf(path.join(tempDir("cs-lsp-gen-"), "occupancy.ts"));

  before(async () => {
    client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0 } } });
    await client.openAndWait(uri, OCCUPANCY_FIXTURE);
  });
  after(async () => {
    await client.stop();
  });

  it("cuda: CUDA C++ text with a line map into the kernel", { skip: noGenerator }, async () => {
    const r = await client.request<GeneratedCode>("cudascript/generatedCode", { uri, kind: "cuda", kernel: "small" });
    assert.equal(r.error, undefined);
    assert.equal(r.languageId, "cuda-cpp");
    const lines = r.text.split("\n");
    assert.match(lines[(r.kernelLine ?? 0) - 1] ?? "", /__global__ void small\(/);
    const src = OCCUPANCY_FIXTURE.split("\n");
    const kStart = src.findIndex((l) => l.startsWith("export const small")) + 1;
    const kEnd = src.findIndex((l, i) => i >= kStart && l.startsWith("});")) + 1;
    assert.ok(r.lineMap.length > 0);
    for (const e of r.lineMap) {
      assert.ok(e.generatedLine >= 1 && e.generatedLine <= lines.length);
      assert.ok(e.sourceLine >= kStart && e.sourceLine <= kEnd, `source line ${e.sourceLine} outside the kernel`);
    }
    const syncLine = src.findIndex((l, i) => i >= kStart && l.includes("cuda.syncthreads()")) + 1;
    const mapped = r.lineMap.filter((e) => e.sourceLine === syncLine).map((e) => lines[e.generatedLine - 1]);
    assert.ok(mapped.some((l) => l?.includes("__syncthreads()")), `syncthreads maps to ${JSON.stringify(mapped)}`);
  });

  it("ptx without NVRTC: a clear error", async () => {
    const r = await client.request<GeneratedCode>("cudascript/generatedCode", { uri, kind: "ptx", kernel: "small" });
    assert.equal(r.text, "");
    assert.match(r.error ?? "", /NVRTC/);
  });

  it("errors: unknown kernel, file with errors, unknown document", async () => {
    assert.match((await client.request<GeneratedCode>("cudascript/generatedCode", { uri, kind: "cuda", kernel: "nope" })).error ?? "", /no kernel named 'nope'/);
    const bad = "untitled:bad.ts";
    await client.openAndWait(bad, 'import { cuda } from "cudascript";\nexport const k = cuda.jit((x: Float32Array) => { x[0] = "s"; });\n');
    assert.match((await client.request<GeneratedCode>("cudascript/generatedCode", { uri: bad, kind: "cuda" })).error ?? "", /fix the 1 error first/);
    assert.ok((await client.request<GeneratedCode>("cudascript/generatedCode", { uri: "untitled:never-opened.ts", kind: "cuda" })).error);
  });
});

describe("robustness and debouncing", () => {
  let client: LspClient;
  before(async () => {
    client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 150 } } });
  });
  after(async () => {
    await client.stop();
  });

  async function answersEverything(uri: string, text: string): Promise<void> {
    const positions = [{ line: 0, character: 0 }, { line: 1, character: 5 }, { line: 9999, character: 9999 }, { line: -1, character: -3 }];
    if (text.length) positions.push(find(text, text.trim().slice(-1) || text[0]!, 0));
    for (const p of positions) {
      await client.hover(uri, p, 5000);
      await client.codeActions(uri, { start: p, end: { line: 0, character: 0 } }, [], 5000);
    }
    assert.ok(Array.isArray(await client.codeLens(uri, 5000)));
    await client.request("cudascript/generatedCode", { uri, kind: "cuda" }, 5000);
    await client.request("cudascript/occupancy", { uri, kernel: "k" }, 5000);
  }

  it("empty, half-typed, syntax errors, foreign and outside-the-workspace documents", async () => {
    const docs: [string, string][] = [
      ["untitled:empty.ts", ""],
      ["untitled:half.ts", 'import { cuda } from "cudascript";\nexport const k = cuda.jit((x: Float32Array) => {\n  const i = cuda.grid(1);\n  if (i < '],
      ["untitled:syntax.ts", 'import { cuda } from "cudascript";\nexport const k = cuda.jit((x: Float32Array => { x[0] = ; }));\n)))}}}'],
      ["untitled:only-import.ts", 'import { cuda } from "cudascript"'],
      ["untitled:host.ts", "export function f(a: number): number { return a * 2; }\n"],
      ["file:///nonexistent-folder/deep/outside.ts", 'import { cuda } from "cudascript";\nimport { g } from "../missing";\nexport const k = cuda.jit((x: Float32Array) => { x[0] = g(1); });\n'],
    ];
    for (const [uri, text] of docs) {
      await client.openAndWait(uri, text);
      await answersEverything(uri, text);
      await client.close(uri);
    }
    // A document that was never opened, and a JavaScript one (not checked).
    await answersEverything("untitled:never.ts", "");
    await client.open("untitled:script.js", "const x = 1;", "javascript");
    await answersEverything("untitled:script.js", "const x = 1;");
    assert.equal(client.publishes("untitled:script.js").length, 0, "JavaScript documents are not checked");
    assert.equal(client.exited, undefined);
  });

  it("a TypeScript syntax error is published as CS1020 with tsc's message on its line", async () => {
    const uri = "untitled:syntax-error.ts";
    const text = 'import { cuda } from "cudascript";\nexport const k = cuda.jit((x: Float32Array) => {\n  const i = cuda.grid(1);\n  if (i < x.length) x[i] = x[i] * ;\n});\n';
    const d = await client.openAndWait(uri, text);
    assert.deepEqual(pairs(d), ["CS1020:4"]);
    assert.equal(d[0]!.message, "TS1109: Expression expected.");
    await client.close(uri);
  });

  it("closing a document clears its diagnostics", async () => {
    const uri = "untitled:closing.ts";
    const d = await client.openAndWait(uri, 'import { cuda } from "cudascript";\nexport const k = cuda.jit((x: Float32Array) => { return 1; });\n');
    assert.ok(d.length > 0);
    const since = client.publishes(uri).length;
    await client.close(uri);
    const p = await client.waitForDiagnostics(uri, () => true, { since });
    assert.deepEqual(p.diagnostics, []);
  });

  it("debounces: a burst of edits is checked once, at its last version", async () => {
    const uri = "untitled:burst.ts";
    const base = 'import { cuda } from "cudascript";\nexport const k = cuda.jit((x: Float32Array) => {\n  const i = cuda.grid(1);\n  if (i < x.length) x[i] = 1;\n});\n';
    await client.openAndWait(uri, base);
    const since = client.publishes(uri).length;
    let last = 0;
    for (let n = 2; n <= 8; n++) last = await client.change(uri, base.replace("x[i] = 1", `x[i] = ${n}`));
    const p = await client.waitForDiagnostics(uri, (x) => x.version === last, { since });
    assert.deepEqual(p.diagnostics, []);
    await new Promise((r) => setTimeout(r, 250));
    assert.deepEqual(client.publishes(uri).slice(since).map((x) => x.version), [last]);
  });

  it("incremental changes (ranges) are applied like an editor does", async () => {
    const uri = "untitled:incremental.ts";
    const text = 'import { cuda } from "cudascript";\nexport const k = cuda.jit((x: Float32Array) => {\n  const i = cuda.grid(1);\n  if (i < x.length) x[i] = 1;\n});\n';
    await client.openAndWait(uri, text);
    const since = client.publishes(uri).length;
    const v = await client.change(uri, [{ range: { start: { line: 3, character: 20 }, end: { line: 3, character: 24 } }, text: "x[i / 2]" }]);
    const p = await client.waitForDiagnostics(uri, (x) => x.version === v, { since });
    assert.deepEqual(pairs(p.diagnostics), ["CS2002:4"]);
    assert.equal(client.text(uri).split("\n")[3], "  if (i < x.length) x[i / 2] = 1;");
  });

  it("logged no internal error and is still running", () => {
    assert.deepEqual(client.internalErrors(), []);
    assert.equal(client.exited, undefined);
  });
});

describe("transports", () => {
  it("--node-ipc", async () => {
    const { fork } = require("node:child_process") as typeof import("node:child_process");
    const { createProtocolConnection, IPCMessageReader, IPCMessageWriter } = require("vscode-languageserver-protocol/node") as typeof import("vscode-languageserver-protocol/node");
    const child = fork(path.join(__dirname, "..", "..", "..", "server", "dist", "server.js"), ["--node-ipc"], { stdio: ["ignore", "ignore", "pipe", "ipc"], env: { ...process.env, CUDASCRIPT_NVRTC: "off" } });
    const conn = createProtocolConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
    conn.listen();
    try {
      const init = (await conn.sendRequest("initialize", { processId: process.pid, rootUri: null, capabilities: {} })) as { capabilities: { hoverProvider?: boolean } };
      assert.equal(init.capabilities.hoverProvider, true);
      await conn.sendNotification("initialized", {});
      const published = new Promise<{ diagnostics: unknown[] }>((resolve) => conn.onNotification("textDocument/publishDiagnostics", (p: { diagnostics: unknown[] }) => resolve(p)));
      await conn.sendNotification("textDocument/didOpen", { textDocument: { uri: "untitled:ipc.ts", languageId: "typescript", version: 1, text: 'import { cuda } from "cudascript";\nexport const k = cuda.jit((x: Float32Array) => { return 1; });\n' } });
      const p = await published;
      assert.equal(p.diagnostics.length, 1);
      await conn.sendRequest("shutdown");
      await conn.sendNotification("exit");
    } finally {
      conn.dispose();
      child.kill();
    }
  });
});

describe("codeDescription links", () => {
  const kernel = 'import { cuda } from "cudascript";\nexport const k = cuda.jit((x: Float32Array) => { return 1; });\n';

  it("diagnostics.docsUrl naming a file: anchors from its headings, only for documented codes", async () => {
    const dir = tempDir("cs-lsp-docs-");
    const doc = path.join(dir, "diagnostics.md");
    fs.writeFileSync(doc, "# Diagnostics\n\n## CS2001 — Kernel returns a value\n\ntext\n");
    const client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0, docsUrl: doc } } });
    try {
      const [d] = await client.openAndWait("untitled:doc-links.ts", kernel);
      assert.equal(d?.code, "CS2001");
      assert.equal(d?.codeDescription?.href, `${uriOf(doc)}#cs2001--kernel-returns-a-value`);
      const [e] = await client.openAndWait("untitled:doc-links-2.ts", 'import { cuda } from "cudascript";\nexport const k = cuda.jit((x: Float32Array) => { x[0] = "s"; });\n');
      assert.equal(e?.code, "CS1001");
      assert.equal(e?.codeDescription, undefined, "no link to a section that does not exist");
    } finally {
      await client.stop();
    }
  });

  it("diagnostics.docsUrl naming a web page: #csNNNN anchors", async () => {
    const client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0, docsUrl: "https://example.com/cudascript/diagnostics.md" } } });
    try {
      const [d] = await client.openAndWait("untitled:web-links.ts", kernel);
      assert.equal(d?.codeDescription?.href, "https://example.com/cudascript/diagnostics.md#cs2001");
    } finally {
      await client.stop();
    }
  });
});

describe("a handler that throws", () => {
  for (const handler of ["hover", "codeAction", "codeLens", "didChange"]) {
    it(`${handler}: logged, answered empty, the server keeps running`, async () => {
      const client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off", CUDASCRIPT_LSP_FAULT: handler }, initializationOptions: { diagnostics: { debounceMs: 0 } } });
      try {
        const uri = "untitled:fault.ts";
        await client.openAndWait(uri, OCCUPANCY_FIXTURE);
        await client.change(uri, OCCUPANCY_FIXTURE + "\n// edited\n");
        const hover = await client.hover(uri, find(OCCUPANCY_FIXTURE, "small.launch", 2));
        const actions = await client.codeActions(uri, { start: { line: 0, character: 0 }, end: { line: 40, character: 0 } });
        const lenses = await client.codeLens(uri);
        if (handler === "hover") assert.equal(hover, null);
        else assert.ok(hover);
        if (handler === "codeAction") assert.deepEqual(actions, []);
        if (handler === "codeLens") assert.deepEqual(lenses, []);
        else assert.ok((lenses ?? []).length > 0);
        const errors = client.internalErrors();
        assert.ok(errors.length > 0 && errors.every((e) => e.includes(`${handler} failed`) && e.includes("CUDASCRIPT_LSP_FAULT")), JSON.stringify(errors));
        assert.equal(client.exited, undefined);
      } finally {
        await client.stop();
      }
    });
  }
});
