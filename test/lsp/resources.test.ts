/**
 * Registers per thread in hovers and CodeLens: from the background compile when a compiler entry point
 * is there (a stand-in reporting 64 registers, loaded through CUDASCRIPT_LSP_BACKEND, makes the numbers
 * hand-workable), "unknown" — never invented — when NVRTC is missing or switched off, and from the real
 * NVRTC when the compiler exports `compileModule` and NVRTC loads on this machine.
 */
import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { computeOccupancy } from "@cudascript/compiler";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { find, LspClient, tempDir, uriOf } from "./harness";
import { OCCUPANCY_FIXTURE } from "./occupancy-fixture";

const FAKE = path.join(__dirname, "fake-backend.js");

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/*
 * Hand-worked with 64 registers per thread on sm_80: a warp allocates roundUp(64 · 32, 256) = 2048
 * registers; each of the 4 sub-partitions has 65536 / 4 = 16384 → 8 warps each, 32 per SM; a 256-thread
 * block has 8 warps → 32 / 8 = 4 blocks. `small` (warps limit 8, shared limit 82): 4 blocks, 32 of 64
 * warps = 50 %, limited by registers. `bigTile` (shared limit 4): 4 blocks, 50 %, registers and shared
 * memory both.
 */
describe("registers from the background compile (stand-in backend)", () => {
  let client: LspClient;
  const dir = tempDir("cs-lsp-res-");
  const log = path.join(dir, "compiles.log");
  const uri = uriOf(path.join(dir, "occupancy.ts"));
  let text = OCCUPANCY_FIXTURE;
  const compiles = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n").filter(Boolean).length : 0);

  before(async () => {
    client = await LspClient.start({
      env: { CUDASCRIPT_LSP_BACKEND: FAKE, FAKE_BACKEND_LOG: log, CUDASCRIPT_NVRTC: undefined },
      initializationOptions: { diagnostics: { debounceMs: 0 }, resources: { debounceMs: 0 } },
    });
    assert.deepEqual(await client.openAndWait(uri, text), []);
  });
  after(async () => {
    await client.stop();
  });

  it("hover shows the reported registers and the register-limited occupancy", async () => {
    const md = await until("registers in the hover", async () => {
      const h = await client.hoverText(uri, find(text, "small.launch", 2));
      return h && /\| Registers per thread \| 64 \(from NVRTC/.test(h) ? h : undefined;
    });
    assert.match(md, /\| 256 \| 4 \| 50% \| registers \|/);
    assert.doesNotMatch(md, /upper bound/);
    const big = await client.hoverText(uri, find(text, "bigTile.launch", 2));
    assert.match(big ?? "", /\| 256 \| 4 \| 50% \| registers, shared memory \|/);
    assert.ok(client.codeLensRefreshes > 0, "the server asks the client to refresh CodeLens when registers arrive");
  });

  it("CodeLens summary uses them", async () => {
    const lenses = (await client.codeLens(uri)) ?? [];
    const titles = lenses.map((l) => l.command?.title);
    assert.ok(titles.includes("occupancy 50% @256 threads · 64 regs (sm_80)"), JSON.stringify(titles));
  });

  it("caches per kernel: a host-code edit compiles nothing, a kernel edit compiles again", async () => {
    const before = compiles();
    assert.equal(before, 1);
    text = text.replace("export function run(", "// launches\nexport function run(");
    await client.changeAndWait(uri, text);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(compiles(), before, "moving kernels or editing host code must not recompile");
    text = text.replace("out[i] = s[t] + 1;", "out[i] = s[t] + 2;");
    await client.changeAndWait(uri, text);
    await until("a second compile", async () => (compiles() === before + 1 ? true : undefined));
  });

  it("generatedCode ptx: text and a line map through .loc", async () => {
    const r = await client.request<{ text: string; languageId: string; lineMap: { generatedLine: number; sourceLine: number }[]; kernelLine?: number; error?: string }>(
      "cudascript/generatedCode",
      { uri, kind: "ptx", kernel: "small" },
    );
    assert.equal(r.error, undefined);
    assert.equal(r.languageId, "ptx");
    const ptxLines = r.text.split("\n");
    assert.match(ptxLines[(r.kernelLine ?? 0) - 1] ?? "", /\.entry small\(/);
    const kernelLine = text.split("\n").findIndex((l) => l.startsWith("export const small")) + 1;
    const movLine = ptxLines.findIndex((l, i) => i > (r.kernelLine ?? 0) && l.startsWith("mov.u32")) + 1;
    assert.deepEqual(
      r.lineMap.filter((e) => e.generatedLine === movLine || e.generatedLine === movLine + 2),
      [
        { generatedLine: movLine, sourceLine: kernelLine },
        { generatedLine: movLine + 2, sourceLine: kernelLine + 1 },
      ],
    );
  });

  it("logged no internal error", () => {
    assert.deepEqual(client.internalErrors(), []);
  });
});

describe("the background compile's cache covers 64-bit integer kernels", () => {
  it("undoing an edit of a kernel whose IR holds bigints (i64 literals, an i64 constant array) compiles nothing", async () => {
    const dir = tempDir("cs-lsp-res64-");
    const log = path.join(dir, "compiles.log");
    const uri = uriOf(path.join(dir, "mix64.ts"));
    const compiles = () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n").filter(Boolean).length : 0);
    const client = await LspClient.start({
      env: { CUDASCRIPT_LSP_BACKEND: FAKE, FAKE_BACKEND_LOG: log, CUDASCRIPT_NVRTC: undefined },
      initializationOptions: { diagnostics: { debounceMs: 0 }, resources: { debounceMs: 0 } },
    });
    try {
      const text = [
        'import { cuda } from "cudascript";',
        "const K = new BigInt64Array([1n, -2n]);",
        "export const mix = cuda.jit((a: BigInt64Array) => {",
        "  const i = cuda.grid(1);",
        "  const c = cuda.const.arrayLike(K);",
        "  if (i < a.length) a[i] = a[i] * 3n + c[i % 2]!;",
        "});",
        "export function run(): void {}",
        "",
      ].join("\n");
      assert.deepEqual(await client.openAndWait(uri, text), []);
      await until("the first compile", async () => (compiles() === 1 ? true : undefined));
      // An edit to the kernel compiles it again; undoing the edit finds the first compile's entry.
      await client.changeAndWait(uri, text.replace("* 3n", "* 5n"));
      await until("the second compile", async () => (compiles() === 2 ? true : undefined));
      await client.changeAndWait(uri, text);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(compiles(), 2, "the i64 kernel as it was must hit the cache");
      assert.deepEqual(client.internalErrors(), []);
    } finally {
      await client.stop();
    }
  });
});

describe("registers unknown when NVRTC is missing", () => {
  it("says why, never a number", async () => {
    const client = await LspClient.start({
      env: { CUDASCRIPT_LSP_BACKEND: FAKE, FAKE_NVRTC_MISSING: "1", CUDASCRIPT_NVRTC: undefined },
      initializationOptions: { diagnostics: { debounceMs: 0 }, resources: { debounceMs: 0 } },
    });
    try {
      const uri = "untitled:missing.ts";
      await client.openAndWait(uri, OCCUPANCY_FIXTURE);
      const md = await until("the NVRTC-missing note", async () => {
        const h = await client.hoverText(uri, find(OCCUPANCY_FIXTURE, "small.launch", 2));
        return h && /libnvrtc was not found/.test(h) ? h : undefined;
      });
      assert.match(md, /\| Registers per thread \| unknown \(NVRTC not available: libnvrtc was not found \(fake\)\) \|/);
      assert.match(md, /\| 256 \| 8 \| ≤ 100% \| warps \|/);
      const r = await client.request<{ error?: string }>("cudascript/generatedCode", { uri, kind: "ptx" });
      assert.match(r.error ?? "", /NVRTC/);
      assert.deepEqual(client.internalErrors(), []);
    } finally {
      await client.stop();
    }
  });
});

describe("registers from the real compiler and NVRTC", () => {
  const compiler = require("@cudascript/compiler") as Record<string, unknown>;
  const noCompile = typeof compiler.compileModule !== "function" ? "the compiler does not export compileModule yet" : false;

  it("hover shows NVRTC's register count", { skip: noCompile }, async (t) => {
    if (!nvrtcOrSkip(t)) return;
    const client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: undefined }, initializationOptions: { diagnostics: { debounceMs: 0 }, resources: { debounceMs: 0 } } });
    try {
      const uri = uriOf(path.join(tempDir("cs-lsp-nvrtc-"), "occupancy.ts"));
      await client.openAndWait(uri, OCCUPANCY_FIXTURE);
      const md = await until(
        "registers from NVRTC",
        async () => {
          const h = await client.hoverText(uri, find(OCCUPANCY_FIXTURE, "small.launch", 2));
          return h && /\| Registers per thread \| \d+ \(from NVRTC/.test(h) ? h : undefined;
        },
        60_000,
      );
      const regs = Number(/\| Registers per thread \| (\d+)/.exec(md)![1]);
      assert.ok(regs >= 1 && regs <= 255, `registers ${regs}`);
      assert.doesNotMatch(md, /upper bound/);
      // The numbers follow from that register count (same calculator as the hand-worked cases above).
      const expected = computeOccupancy({ arch: "sm_80", threadsPerBlock: 256, registersPerThread: regs, staticSharedBytes: 1024, dynamicSharedBytes: 0 });
      assert.match(md, new RegExp(`\\| 256 \\| ${expected.activeBlocksPerSM} \\| ${Number((expected.occupancy * 100).toFixed(1))}% \\|`));
      const ptx = await client.request<{ text: string; lineMap: unknown[]; kernelLine?: number; error?: string }>("cudascript/generatedCode", { uri, kind: "ptx", kernel: "small" });
      assert.equal(ptx.error, undefined);
      assert.match(ptx.text.split("\n")[(ptx.kernelLine ?? 0) - 1] ?? "", /\.entry small\(/);
      assert.ok(ptx.lineMap.length > 0, "PTX lines map back through .loc");
      assert.deepEqual(client.internalErrors(), []);
    } finally {
      await client.stop();
    }
  });

  it("without NVRTC (CUDASCRIPT_NVRTC=off) the hover says unknown", async () => {
    const client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0 }, resources: { debounceMs: 0 } } });
    try {
      const uri = "untitled:off.ts";
      await client.openAndWait(uri, OCCUPANCY_FIXTURE);
      await new Promise((r) => setTimeout(r, 200));
      const md = await client.hoverText(uri, find(OCCUPANCY_FIXTURE, "small.launch", 2));
      assert.match(md ?? "", /\| Registers per thread \| unknown \(NVRTC not available: disabled by CUDASCRIPT_NVRTC=off\) \|/);
      const lenses = (await client.codeLens(uri)) ?? [];
      assert.ok(lenses.some((l) => l.command?.title === "occupancy ≤100% @256 threads · regs unknown (sm_80)"));
    } finally {
      await client.stop();
    }
  });
});
