/** docs/diagnostics.md documents every code the checker can report, with its exact title and examples. */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { ALL_CODES } from "@cudascript/compiler";

const doc = fs.readFileSync(path.resolve(__dirname, "../../../docs/diagnostics.md"), "utf8");

test("every diagnostic code has a section in docs/diagnostics.md with its title", () => {
  for (const def of ALL_CODES) {
    const at = doc.indexOf(`## ${def.code}`);
    assert.ok(at >= 0, `${def.code} has no section`);
    assert.ok(doc.includes(`| [${def.code}](#${def.code.toLowerCase()}) | ${def.severity} | ${def.title} |`), `${def.code}: the table row must match codes.ts (severity ${def.severity}, title "${def.title}")`);
  }
});

test("every language-rule section shows a wrong and a right example", () => {
  for (const def of ALL_CODES) {
    if (def.code.startsWith("CS9")) continue; // the compiler's own failures have nothing to write instead
    const start = doc.indexOf(`## ${def.code}`);
    const next = doc.indexOf("\n## ", start + 1);
    const section = doc.slice(start, next < 0 ? undefined : next);
    assert.match(section, /\*\*Wrong\*\*/, `${def.code} has no Wrong example`);
    assert.match(section, /\*\*Right\*\*/, `${def.code} has no Right example`);
  }
});
