/** `cudascript check --format sarif`: a SARIF 2.1.0 log that the official schema accepts, for code scanning. */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import type { Log } from "sarif";
import { cli, CLEAN_KERNEL, REPO, STRING_IN_KERNEL, tempDir } from "./cli-helpers";

// The schema (see test/cli/sarif/README.md for where it comes from); .json files are not compiled into dist.
const schema = JSON.parse(fs.readFileSync(path.join(REPO, "test/cli/sarif/sarif-schema-2.1.0.json"), "utf8"));
// unicodeRegExp off: the schema's `language` pattern has a stray `]`, valid only without the u flag.
const validate = addFormats(new Ajv({ allErrors: true, strict: false, unicodeRegExp: false })).compile(schema);

function sarif(t: { after(fn: () => void): void }, files: Record<string, string>, args: string[]) {
  const dir = tempDir(t, files);
  const r = cli(["check", "--format", "sarif", ...args], { cwd: dir });
  return { dir, code: r.code, err: r.err, log: JSON.parse(r.out) as Log };
}

test("--format sarif validates against the SARIF 2.1.0 schema and names the tool, rules and 1-based regions", (t) => {
  const { dir, code, log } = sarif(t, { "src/bad.ts": STRING_IN_KERNEL, "ok.ts": CLEAN_KERNEL }, ["."]);
  assert.equal(code, 1, "errors still exit 1");
  assert.equal(validate({ version: "2.1.0" }), false, "the schema rejects a log without runs");
  assert.ok(validate(log), JSON.stringify(validate.errors, null, 2));
  assert.equal(log.version, "2.1.0");
  const run = log.runs[0]!;
  const driver = run.tool.driver;
  assert.equal(driver.name, "cudascript");
  assert.match(driver.version ?? "", /^\d+\.\d+\.\d+/);
  assert.match(driver.informationUri ?? "", /^https:\/\//);
  assert.deepEqual(driver.rules?.map((r) => r.id), ["CS1001"]);
  const helpUri = driver.rules![0]!.helpUri!;
  assert.match(helpUri, /diagnostics\.md#cs1001$/);
  // The link names a real section of the document.
  assert.match(fs.readFileSync(fileURLToPath(helpUri.replace(/#.*$/, "")), "utf8"), /^## CS1001$/m);
  assert.equal(fs.realpathSync(fileURLToPath(run.originalUriBaseIds!.SRCROOT!.uri!)), fs.realpathSync(dir));
  assert.equal(run.results!.length, 1);
  const result = run.results![0]!;
  assert.equal(result.ruleId, "CS1001");
  assert.equal(result.level, "error");
  assert.match(result.message.text!, /strings are not supported in kernels/);
  const loc = result.locations![0]!.physicalLocation!;
  assert.deepEqual(loc.artifactLocation, { uri: "src/bad.ts", uriBaseId: "SRCROOT" });
  assert.equal(loc.region!.startLine, 3);
  assert.equal(loc.region!.startColumn, 10, "1-based, as the text output");
});

test("--format sarif with no findings is a valid log with no results; warnings are level warning", (t) => {
  const clean = sarif(t, { "ok.ts": CLEAN_KERNEL }, ["ok.ts"]);
  assert.equal(clean.code, 0);
  assert.ok(validate(clean.log), JSON.stringify(validate.errors));
  assert.deepEqual(clean.log.runs[0]!.results, []);
  const warn = sarif(t, { "w.ts": 'import { cuda } from "cudascript";\nexport const k = cuda.jit((a: Float32Array) => {\n  const i = cuda.grid(1);\n  a[i] = 1;\n});\n' }, ["w.ts"]);
  assert.ok(validate(warn.log), JSON.stringify(validate.errors));
  assert.equal(warn.log.runs[0]!.results![0]!.level, "warning");
  assert.equal(warn.log.runs[0]!.tool.driver.rules![0]!.defaultConfiguration!.level, "warning");
});
