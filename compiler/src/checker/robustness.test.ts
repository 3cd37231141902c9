/** The checker never throws and never reports an internal error, whatever slice of real code it sees. */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { KernelChecker } from "./checker";

const corpus = path.resolve(__dirname, "../../../test/corpus");

function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test("2,000 random edits of corpus files: no exception, no internal error, same result as a fresh check", () => {
  const texts = ["valid", "invalid"].flatMap((d) =>
    fs
      .readdirSync(path.join(corpus, d))
      .filter((f) => f.endsWith(".ts") && !f.endsWith(".ref.ts"))
      .map((f) => fs.readFileSync(path.join(corpus, d, f), "utf8")),
  );
  assert.ok(texts.length > 50);
  const rand = seeded(42);
  const checker = new KernelChecker();
  const file = "/virtual/fuzz/k.ts";
  let text = texts[0]!;
  for (let i = 0; i < 2000; i++) {
    const r = rand();
    const at = Math.floor(rand() * (text.length + 1));
    const len = Math.floor(rand() * 40);
    if (r < 0.35) text = text.slice(0, at) + text.slice(at + len);
    else if (r < 0.7) {
      const src = texts[Math.floor(rand() * texts.length)]!;
      const from = Math.floor(rand() * src.length);
      text = text.slice(0, at) + src.slice(from, from + len * 3) + text.slice(at);
    } else if (r < 0.95) text = text.slice(0, at) + text.slice(at, at + len) + text.slice(at);
    else text = texts[Math.floor(rand() * texts.length)]!;
    checker.setFileText(file, text);
    const result = checker.checkFile(file);
    const internal = result.diagnostics.find((d) => d.code === "CS9001");
    assert.equal(internal, undefined, `internal error after edit ${i}: ${internal?.message}\n--- text ---\n${text}`);
    if (i % 50 === 0) {
      // Incremental re-parsing and cached lowerings give exactly what a fresh checker gives.
      const fresh = new KernelChecker();
      fresh.setFileText(file, text);
      const show = (ds: typeof result.diagnostics) => ds.map((d) => `${d.code}@${d.span.start}-${d.span.end}:${d.message}`);
      assert.deepEqual(show(result.diagnostics), show(fresh.checkFile(file).diagnostics), `after edit ${i}`);
    }
  }
});
