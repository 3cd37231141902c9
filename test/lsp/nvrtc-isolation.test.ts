/**
 * A real language-server process with the real NVRTC: a file of deeply nested kernels (which crashed
 * the server as soon as it was opened, when NVRTC ran on koffi's 128 KiB async stack) gets its
 * registers and its PTX; and when NVRTC does crash (its compile child given a 64 KiB stack), the
 * server reports it and keeps answering.
 */
import { describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { CORPUS, find, LspClient, tempDir, uriOf } from "./harness";

const NESTED = fs.readFileSync(path.join(CORPUS, "valid", "deeply_nested.ts"), "utf8");
const KERNELS = ["horner", "nestedIfs", "longSum"];

interface Occupancy {
  registers: number | null;
  registersNote?: string;
}

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A server with its own empty compile cache, so that NVRTC really runs. */
async function startServer(env: Record<string, string | undefined> = {}): Promise<LspClient> {
  return LspClient.start({
    env: { CUDASCRIPT_NVRTC: undefined, CUDASCRIPT_CACHE_DIR: tempDir("cs-lsp-nvrtc-cache-"), ...env },
    initializationOptions: { diagnostics: { debounceMs: 0 }, resources: { debounceMs: 0 } },
  });
}

describe("NVRTC in the language server", () => {
  it("a file of deeply nested kernels gets registers and PTX, and the server keeps answering", async (t) => {
    if (!nvrtcOrSkip(t)) return;
    const client = await startServer();
    try {
      const uri = uriOf(path.join(tempDir("cs-lsp-nested-"), "deeply_nested.ts"));
      assert.deepEqual(await client.openAndWait(uri, NESTED), []);
      for (const kernel of KERNELS) {
        const r = await until(`registers of ${kernel}`, async () => {
          const o = await client.request<Occupancy>("cudascript/occupancy", { uri, kernel });
          return o.registers !== null ? o : undefined;
        });
        assert.ok(r.registers! >= 1 && r.registers! <= 255, `${kernel}: ${r.registers}`);
      }
      const ptx = await client.request<{ text: string; error?: string }>("cudascript/generatedCode", { uri, kind: "ptx", kernel: "nestedIfs" });
      assert.equal(ptx.error, undefined);
      assert.match(ptx.text, /\.visible \.entry nestedIfs\(/);
      assert.match((await client.hoverText(uri, find(NESTED, "horner = cuda.jit", 1))) ?? "", /horner/);
      assert.equal(client.exited, undefined, client.stderr.slice(-500));
      assert.deepEqual(client.internalErrors(), []);
    } finally {
      await client.stop();
    }
  });

  it("a crash of NVRTC is reported (CS9003's message) and the server keeps answering", async (t) => {
    if (!nvrtcOrSkip(t)) return;
    const client = await startServer({ CUDASCRIPT_NVRTC_STACK_KIB: "64" });
    try {
      const uri = uriOf(path.join(tempDir("cs-lsp-crash-"), "deeply_nested.ts"));
      assert.deepEqual(await client.openAndWait(uri, NESTED), []);
      const note = await until("the crash in the registers note", async () => {
        const o = await client.request<Occupancy>("cudascript/occupancy", { uri, kernel: "horner" });
        return o.registersNote && /NVRTC crashed/.test(o.registersNote) ? o.registersNote : undefined;
      });
      assert.match(note, /NVRTC compile failed: NVRTC crashed \(SIGSEGV\) while compiling deeply_nested\.cu/);
      const ptx = await client.request<{ error?: string }>("cudascript/generatedCode", { uri, kind: "ptx", kernel: "horner" });
      assert.match(ptx.error ?? "", /NVRTC crashed \(SIGSEGV\)/);
      // Still answering: a hover, and an edit's diagnostics.
      assert.match((await client.hoverText(uri, find(NESTED, "horner = cuda.jit", 1))) ?? "", /horner/);
      assert.deepEqual(await client.changeAndWait(uri, NESTED.replace("0.5 * v", "0.25 * v")), []);
      assert.equal(client.exited, undefined, client.stderr.slice(-500));
      assert.deepEqual(client.internalErrors(), []);
    } finally {
      await client.stop();
    }
  });
});
