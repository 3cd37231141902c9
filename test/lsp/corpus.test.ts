/**
 * Every corpus file through the real server over stdio: each invalid file gets exactly the
 * `// @expect CSxxxx` (code, line) pairs, each valid kernel file gets no diagnostic at all. Also checks
 * what every published diagnostic carries (source, severity, codeDescription link, related locations).
 */
import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { corpusFiles, expectedMarkers, LspClient, pairs, REPO, uriOf } from "./harness";

/** Codes with a `## CSxxxx` heading in docs/diagnostics.md: those must link to it. */
function documentedCodes(): Set<string> {
  const doc = path.join(REPO, "docs", "diagnostics.md");
  if (!fs.existsSync(doc)) return new Set();
  return new Set([...fs.readFileSync(doc, "utf8").matchAll(/^##\s+`?(CS\d{4})\b/gm)].map((m) => m[1]!));
}

describe("corpus diagnostics over LSP", () => {
  let client: LspClient;
  before(async () => {
    client = await LspClient.start({ initializationOptions: { diagnostics: { debounceMs: 0 } } });
  });
  after(async () => {
    await client.stop();
  });

  const documented = documentedCodes();
  const docUri = uriOf(path.join(REPO, "docs", "diagnostics.md"));
  const invalid = corpusFiles("invalid");
  const valid = corpusFiles("valid");

  it("finds the corpus", () => {
    assert.ok(invalid.length > 0, "test/corpus/invalid is empty");
    assert.ok(valid.length > 0, "test/corpus/valid is empty");
  });

  for (const file of invalid) {
    const name = file.slice(file.lastIndexOf("/") + 1);
    it(`invalid/${name}: exactly the @expect diagnostics`, async () => {
      const text = fs.readFileSync(file, "utf8");
      const uri = uriOf(file);
      const diagnostics = await client.openAndWait(uri, text);
      await client.close(uri);
      assert.deepEqual(pairs(diagnostics), expectedMarkers(text));
      for (const d of diagnostics) {
        assert.equal(d.source, "cudascript");
        assert.match(String(d.code), /^CS\d{4}$/);
        assert.ok(d.severity !== undefined && d.severity >= 1 && d.severity <= 4);
        assert.ok(String(typeof d.message === "string" ? d.message : d.message.value).length > 0);
        if (documented.has(String(d.code))) assert.equal(d.codeDescription?.href, `${docUri}#${String(d.code).toLowerCase()}`);
        for (const r of d.relatedInformation ?? []) assert.match(r.location.uri, /^file:/);
      }
    });
  }

  for (const file of valid) {
    const name = file.slice(file.lastIndexOf("/") + 1);
    it(`valid/${name}: no diagnostics`, async () => {
      const uri = uriOf(file);
      const diagnostics = await client.openAndWait(uri, fs.readFileSync(file, "utf8"));
      await client.close(uri);
      assert.deepEqual(pairs(diagnostics), []);
    });
  }

  it("logged no internal error", () => {
    assert.deepEqual(client.internalErrors(), []);
  });
});
