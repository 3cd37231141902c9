/**
 * Robustness: thousands of random edits (deletions, insertions of corpus text, duplications of the
 * document's own text; seeded, so a failure replays) sent as incremental didChange notifications on a
 * few documents, interleaved with hover, codeAction, codeLens and generatedCode requests at random
 * positions. The server must answer every request within a timeout, never exit, and log no internal
 * error or uncaught exception. At the end, its diagnostics for each document must equal a fresh
 * checker's for the same text (the incremental caches drifted nowhere).
 *
 * CUDASCRIPT_FUZZ_EDITS and CUDASCRIPT_FUZZ_SEED override the defaults.
 */
import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { KernelChecker } from "@cudascript/compiler";
import type { Position, TextDocumentContentChangeEvent } from "vscode-languageserver-protocol";
import { seeded } from "../corpus/case";
import { corpusFiles, LspClient, pairs, positionAt, tempDir, uriOf } from "./harness";

const EDITS = Number(process.env.CUDASCRIPT_FUZZ_EDITS ?? 5000);
const SEED = Number(process.env.CUDASCRIPT_FUZZ_SEED ?? 0xc0da);
const DOCS = 4;
const REQUEST_TIMEOUT_MS = 10_000;

describe("fuzz: random edits and requests", () => {
  let client: LspClient;
  const rand = seeded(SEED);
  const int = (n: number) => Math.floor(rand() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const sources = [...corpusFiles("valid"), ...corpusFiles("invalid")].map((f) => fs.readFileSync(f, "utf8"));
  const words = [...new Set(sources.join("\n").match(/[A-Za-z_$][\w$]*|\d+(\.\d+)?|[-+*/%<>=!&|^~?:]+/g) ?? [])];
  const dir = tempDir("cs-lsp-fuzz-");
  const uris = Array.from({ length: DOCS }, (_, i) => uriOf(path.join(dir, `doc${i}.ts`)));

  before(async () => {
    client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 3 } }, requestTimeoutMs: REQUEST_TIMEOUT_MS });
    for (const uri of uris) await client.openAndWait(uri, pick(sources));
  });
  after(async () => {
    await client.stop();
  });

  function randomEdit(text: string): TextDocumentContentChangeEvent {
    const at = int(text.length + 1);
    const r = rand();
    if (r < 0.02) return { text: pick(sources) }; // whole-document replacement, now and then
    if (r < 0.25) {
      // Replace one token with another from the corpus: keeps the text parseable more often.
      const m = /[A-Za-z_$][\w$]*|\d+(\.\d+)?|[-+*/%<>=!&|^~?:]+/g;
      m.lastIndex = at;
      const hit = m.exec(text);
      if (hit) return { range: { start: positionAt(text, hit.index), end: positionAt(text, hit.index + hit[0].length) }, text: pick(words) };
    }
    if (r < 0.5) {
      const len = 1 + int(Math.min(60, text.length - at + 1));
      return { range: { start: positionAt(text, at), end: positionAt(text, Math.min(text.length, at + len)) }, text: "" };
    }
    if (r < 0.8) {
      const src = pick(sources);
      const from = int(src.length);
      const piece = src.slice(from, from + 1 + int(80));
      return { range: { start: positionAt(text, at), end: positionAt(text, at) }, text: piece };
    }
    const from = int(text.length + 1);
    const piece = text.slice(from, from + 1 + int(120));
    return { range: { start: positionAt(text, at), end: positionAt(text, at) }, text: piece };
  }

  function randomPosition(text: string): Position {
    if (rand() < 0.05) return { line: int(10_000), character: int(500) }; // past the end
    return positionAt(text, int(text.length + 1));
  }

  it(`${EDITS} edits with interleaved requests: every request answered, no crash, no internal error`, { timeout: 180_000 }, async () => {
    const started = Date.now();
    let requests = 0;
    let pending: Promise<unknown>[] = [];
    for (let n = 0; n < EDITS; n++) {
      const uri = pick(uris);
      let text = client.text(uri);
      // Keep documents from growing without bound.
      const change = text.length > 12_000 ? { text: pick(sources) } : randomEdit(text);
      await client.change(uri, [change]);
      text = client.text(uri);
      if (n % 3 === 0) {
        const p = randomPosition(text);
        const q = randomPosition(text);
        const kind = int(10);
        const req =
          kind < 4
            ? client.hover(uri, p)
            : kind < 7
              ? client.codeActions(uri, { start: p, end: q })
              : kind < 9
                ? client.codeLens(uri)
                : client.request("cudascript/generatedCode", { uri, kind: "cuda" });
        pending.push(req);
        requests++;
      }
      if (pending.length >= 16) {
        await Promise.all(pending);
        pending = [];
        assert.equal(client.exited, undefined, "the server exited");
      }
    }
    await Promise.all(pending);
    // Every document settles at its last version.
    for (const uri of uris) await client.waitForDiagnostics(uri, (p) => p.version === client.version(uri), { timeoutMs: REQUEST_TIMEOUT_MS });
    assert.equal(client.exited, undefined, "the server exited");
    assert.deepEqual(client.internalErrors(), []);
    console.log(`fuzz: ${EDITS} edits, ${requests} requests in ${((Date.now() - started) / 1000).toFixed(1)} s (seed ${SEED})`);
  });

  it("final diagnostics equal a fresh checker's for the same texts", async () => {
    const fresh = new KernelChecker();
    for (const uri of uris) {
      const file = path.join(dir, path.basename(new URL(uri).pathname));
      fresh.setFileText(file, client.text(uri));
    }
    for (const uri of uris) {
      const file = path.join(dir, path.basename(new URL(uri).pathname));
      const expected = fresh.checkFile(file).diagnostics.map((d) => `${d.code}:${d.span.line}`).sort();
      const last = client.publishes(uri).filter((p) => p.version === client.version(uri)).pop();
      assert.ok(last, `no publish for the final version of ${uri}`);
      assert.deepEqual(pairs(last.diagnostics), expected, `${uri}\n--- text ---\n${client.text(uri)}`);
    }
  });
});
