/** Command-line conventions as node/tsc/esbuild users expect: -h everywhere, --version, program arguments after the file. */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { cli, REPO, tempDir } from "./cli-helpers";

const version = JSON.parse(fs.readFileSync(path.join(REPO, "runtime/package.json"), "utf8")).version as string;

test("-h and --help print each command's usage and exit 0", () => {
  for (const command of ["check", "compile", "run", "doctor", "devices"]) {
    for (const flag of ["-h", "--help"]) {
      const r = cli([command, flag]);
      assert.equal(r.code, 0, `${command} ${flag}: ${r.all}`);
      assert.match(r.out, new RegExp(`^Usage: cudascript ${command}\\b`), `${command} ${flag}`);
      assert.match(r.out, /-h, --help/, `${command} ${flag} lists -h`);
    }
  }
  const top = cli(["-h"]);
  assert.equal(top.code, 0, top.all);
  assert.match(top.out, /^Usage: cudascript <command>/);
});

test("--version and -v at the top, and --version after a command, print the package version", () => {
  for (const args of [["--version"], ["-v"], ["check", "--version"], ["run", "--version"], ["compile", "--version"]]) {
    const r = cli(args);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.all}`);
    assert.equal(r.out.trim(), version, args.join(" "));
  }
});

test("run passes every argument after the program file to the program, as node does; options go before it", (t) => {
  const dir = tempDir(t, { "args.ts": "console.log(JSON.stringify(process.argv.slice(2)));\n" });
  const file = path.join(dir, "args.ts");
  const own = cli(["run", "--timeout", "30", file, "--size", "10", "-h", "--timeout", "x"]);
  assert.equal(own.code, 0, own.all);
  assert.equal(own.out.trim(), JSON.stringify(["--size", "10", "-h", "--timeout", "x"]));
  assert.match(own.err, /note: --timeout after .*args\.ts goes to the program; cudascript's own options go before the file/);
  const dashes = cli(["run", file, "--", "--size", "10"]);
  assert.equal(dashes.code, 0, dashes.all);
  assert.equal(dashes.out.trim(), JSON.stringify(["--size", "10"]), "a -- right after the file is still accepted");
  const before = cli(["run", "--", file, "a"]);
  assert.equal(before.out.trim(), JSON.stringify(["a"]), before.all);
});

test("an unknown option before the program file is a usage error (exit 2) naming it", () => {
  const r = cli(["run", "--sanitise", "examples/saxpy.ts"]);
  assert.equal(r.code, 2, r.all);
  assert.match(r.err, /unknown option '--sanitise'/);
  assert.match(r.err, /Usage: cudascript run \[options\] <file\.ts> \[program arguments\.\.\.\]/);
});
