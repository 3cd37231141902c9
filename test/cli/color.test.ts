/** NO_COLOR / FORCE_COLOR as https://no-color.org and Node.js read them; colour only on a terminal otherwise. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { useColor } from "cudascript/dist/cli/color";
import { cli, tempDir } from "./cli-helpers";

test("useColor: FORCE_COLOR decides when set, else a non-empty NO_COLOR turns colour off, else only a terminal gets colour", () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  assert.equal(useColor(tty, {}), true);
  assert.equal(useColor(pipe, {}), false);
  assert.equal(useColor(tty, { NO_COLOR: "1" }), false);
  assert.equal(useColor(tty, { NO_COLOR: "" }), true, "an empty NO_COLOR is not set (no-color.org)");
  assert.equal(useColor(tty, { TERM: "dumb" }), false);
  for (const on of ["", "1", "2", "3", "true"]) assert.equal(useColor(pipe, { FORCE_COLOR: on }), true, `FORCE_COLOR=${on}`);
  for (const off of ["0", "false"]) assert.equal(useColor(tty, { FORCE_COLOR: off }), false, `FORCE_COLOR=${off}`);
  assert.equal(useColor(pipe, { FORCE_COLOR: "1", NO_COLOR: "1" }), true, "FORCE_COLOR wins, as in Node.js");
});

test("run colours its build messages only when FORCE_COLOR asks (not in a pipe, never with NO_COLOR)", (t) => {
  const dir = tempDir(t, {
    "warn.ts": 'import { cuda } from "cudascript";\nconst k = cuda.jit((a: Float32Array) => {\n  const i = cuda.grid(1);\n  a[i] = 1;\n});\nlet size = 32; // a length the checker cannot see: CS5005 stays\nk.launch(1, 32)(new Float32Array(size));\n',
  });
  const ansi = /\x1b\[/;
  const forced = cli(["run", "warn.ts"], { cwd: dir, env: { FORCE_COLOR: "1", NO_COLOR: undefined } });
  assert.match(forced.err, /CS5005/, forced.all);
  assert.match(forced.err, ansi, "FORCE_COLOR=1 colours a pipe");
  // The second run reuses the cached build and its stored warnings: the same choice applies.
  for (const env of [{ FORCE_COLOR: undefined, NO_COLOR: "1" }, { FORCE_COLOR: undefined, NO_COLOR: undefined }, { FORCE_COLOR: "0", NO_COLOR: undefined }]) {
    const r = cli(["run", "warn.ts"], { cwd: dir, env });
    assert.match(r.err, /CS5005/, r.all);
    assert.doesNotMatch(r.err, ansi, JSON.stringify(env));
  }
});
