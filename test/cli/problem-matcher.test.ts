/**
 * The extension's `$cudascript` problem matcher (root package.json, contributes.problemMatchers) reads
 * the real `cudascript check` output: its regexp, applied line by line as VS Code applies it, gives
 * each diagnostic's file, line, column, severity, code and message.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, REPO, STRING_IN_KERNEL, tempDir } from "./cli-helpers";

interface Pattern { regexp: string; file: number; line: number; column: number; severity: number; code: number; message: number }
interface Matcher { name: string; owner?: string; base?: string; fileLocation?: string[]; pattern?: Pattern; background?: { activeBegin: string; activeEnd: string } }

const matchers = (JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).contributes.problemMatchers ?? []) as Matcher[];
const matcher = matchers.find((m) => m.name === "cudascript");

function problems(output: string) {
  const p = matcher!.pattern!;
  const re = new RegExp(p.regexp);
  return output.split(/\r?\n/).flatMap((line) => {
    const m = re.exec(line);
    return m ? [{ file: m[p.file]!, line: Number(m[p.line]), column: Number(m[p.column]), severity: m[p.severity]!, code: m[p.code]!, message: m[p.message]! }] : [];
  });
}

const WARNING = 'import { cuda } from "cudascript";\nexport const w = cuda.jit((a: Float32Array) => {\n  const i = cuda.grid(1);\n  a[i] = 1;\n});\n';

test("$cudascript reads check's errors and warnings: file, line, column, severity, code, message", (t) => {
  assert.ok(matcher, "package.json contributes a problem matcher named cudascript");
  assert.equal(matcher.owner, "cudascript");
  assert.deepEqual(matcher.fileLocation, ["autoDetect", "${workspaceFolder}"]);
  const dir = tempDir(t, { "src/bad.ts": STRING_IN_KERNEL, "src/warn.ts": WARNING });
  const r = cli(["check", "src"], { cwd: dir });
  assert.equal(r.code, 1, r.all);
  const found = problems(r.out);
  assert.deepEqual(found, [
    { file: "src/bad.ts", line: 3, column: 10, severity: "error", code: "CS1001", message: found[0]!.message },
    { file: "src/warn.ts", line: 4, column: 3, severity: "warning", code: "CS5005", message: found[1]!.message },
  ]);
  assert.match(found[0]!.message, /^strings are not supported in kernels/);
  assert.match(found[1]!.message, /would access past the end of 'a'/);
  // Relative to the folder the task runs in (the workspace folder), as fileLocation says.
  for (const p of found) assert.ok(fs.existsSync(path.join(dir, p.file)), p.file);
  // The summary line and related-location lines are not problems.
  assert.equal(found.length, 2);
});

test("$cudascript also reads run's build errors, which use the same line format", (t) => {
  const dir = tempDir(t, { "bad.ts": STRING_IN_KERNEL });
  const r = cli(["run", "bad.ts"], { cwd: dir });
  assert.deepEqual(problems(r.err).map(({ file, line, column, code }) => ({ file, line, column, code })), [{ file: "bad.ts", line: 3, column: 10, code: "CS1001" }]);
});
