/** `cudascript check` expands globs as tinyglobby (picomatch) does: braces, classes, `**`; no match is an error. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cli, CLEAN_KERNEL, STRING_IN_KERNEL, tempDir } from "./cli-helpers";

function project(t: { after(fn: () => void): void }) {
  return tempDir(t, { "a.ts": STRING_IN_KERNEL, "b.ts": STRING_IN_KERNEL, "k1.ts": STRING_IN_KERNEL, "k2.ts": STRING_IN_KERNEL, "deep/er/c.ts": CLEAN_KERNEL, "node_modules/x/d.ts": STRING_IN_KERNEL });
}

test("{a,b} and [k] globs select exactly the files they name", (t) => {
  const dir = project(t);
  const braces = cli(["check", "{a,b}.ts"], { cwd: dir });
  assert.equal(braces.code, 1, braces.all);
  assert.match(braces.out, /^a\.ts:3:10 - error CS1001/m);
  assert.match(braces.out, /^b\.ts:3:10 - error CS1001/m);
  assert.match(braces.out, /Checked 2 files/);
  const cls = cli(["check", "k[1].ts"], { cwd: dir });
  assert.match(cls.out, /^k1\.ts:3:10/m);
  assert.doesNotMatch(cls.out, /k2\.ts/);
  assert.match(cls.out, /Checked 1 file /);
});

test("** crosses folders but not into node_modules", (t) => {
  const dir = project(t);
  const r = cli(["check", "**/*.ts"], { cwd: dir });
  assert.match(r.out, /Checked 5 files \(5 kernels\): 4 errors/, r.all);
  assert.doesNotMatch(r.out, /node_modules/);
});

test("a glob that matches nothing is an error saying so, exit 2", (t) => {
  const dir = project(t);
  const r = cli(["check", "{x,y}.ts"], { cwd: dir });
  assert.equal(r.code, 2, r.all);
  assert.match(r.err, /no TypeScript file matches '\{x,y\}\.ts'/);
  const withOthers = cli(["check", "a.ts", "src/**/*.ts"], { cwd: dir });
  assert.equal(withOthers.code, 2, withOthers.all);
  assert.match(withOthers.err, /no TypeScript file matches 'src\/\*\*\/\*\.ts'/);
});
