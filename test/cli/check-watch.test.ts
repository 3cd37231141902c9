/** `cudascript check --watch` as a user runs it: a real process, a file edited on disk, Ctrl-C. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { CLEAN_KERNEL, CLI, REPO, STRING_IN_KERNEL, tempDir } from "./cli-helpers";

/** The extension's background problem matcher for `check --watch` (root package.json). */
const watchMatcher = (JSON.parse(fs.readFileSync(path.join(REPO, "package.json"), "utf8")).contributes.problemMatchers as { name: string; background?: { activeBegin: string; activeEnd: string } }[]).find(
  (m) => m.name === "cudascript-watch",
);

/** The watcher's stdout so far, and a wait for a pattern to appear in it (after `from`). */
function watch(dir: string, args: string[]) {
  const child = spawn(process.execPath, [CLI, "check", "--watch", ...args], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (s: string) => (out += s));
  child.stderr.setEncoding("utf8").on("data", (s: string) => (out += s));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const waitFor = async (re: RegExp, from: number, ms = 60_000): Promise<string> => {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      const m = re.exec(out.slice(from));
      if (m) return out.slice(from);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill("SIGKILL");
    throw new Error(`timed out waiting for ${re} in:\n${out}`);
  };
  return { child, exited, waitFor, length: () => out.length };
}

test("--watch re-checks when a checked file or a file it imports changes, and Ctrl-C exits 0", async (t) => {
  const helper = 'import { cuda, f32 } from "cudascript";\nexport const twice = cuda.device((x: f32): f32 => {\n  return x * 2;\n});\n';
  const main = 'import { cuda } from "cudascript";\nimport { twice } from "./helper";\nexport const k = cuda.jit((a: Float32Array) => {\n  const i = cuda.grid(1);\n  if (i < a.length) a[i] = twice(a[i]);\n});\n';
  const dir = tempDir(t, { "main.ts": main, "helper.ts": helper, "other.ts": CLEAN_KERNEL });
  const w = watch(dir, ["main.ts", "other.ts"]);
  t.after(() => w.child.kill("SIGKILL"));
  const first = await w.waitFor(/Found 0 errors in 2 files\. Watching for file changes\./, 0);
  assert.match(first, /Starting check in watch mode/);

  // An edit of a checked file.
  let mark = w.length();
  fs.writeFileSync(path.join(dir, "other.ts"), STRING_IN_KERNEL);
  const second = await w.waitFor(/Found 1 error in 2 files\. Watching for file changes\./, mark);
  assert.match(second, /File change detected\. Starting incremental check/);
  // The $cudascript-watch matcher sees each round begin and end in these very lines.
  const lines = (first + second).split("\n");
  const begin = new RegExp(watchMatcher!.background!.activeBegin);
  const end = new RegExp(watchMatcher!.background!.activeEnd);
  assert.equal(lines.filter((l) => begin.test(l)).length, 2, "two rounds began");
  assert.equal(lines.filter((l) => end.test(l)).length, 2, "two rounds ended");
  assert.match(second, /^other\.ts:3:10 - error CS1001: /m);

  // An edit of a file the checked one imports (a device function that now uses a string).
  mark = w.length();
  fs.writeFileSync(path.join(dir, "helper.ts"), helper.replace("x * 2", '"ab".length * x'));
  const third = await w.waitFor(/Found \d+ errors in 2 files\. Watching/, mark);
  assert.match(third, /^main\.ts:5:28 - error CS1001: 'twice' cannot be compiled: helper\.ts:3:10: strings/m);

  // Fixed again: back to the first file's error only.
  mark = w.length();
  fs.writeFileSync(path.join(dir, "helper.ts"), helper);
  await w.waitFor(/Found 1 error in 2 files\. Watching/, mark);

  w.child.kill("SIGINT");
  assert.equal(await w.exited, 0, "Ctrl-C ends the watch with exit code 0");
});

test("--watch with --format json or sarif is a usage error (exit 2)", async () => {
  const { spawnSync } = await import("node:child_process");
  const r = spawnSync(process.execPath, [CLI, "check", "--watch", "--format", "json", "x.ts"], { encoding: "utf8", timeout: 30_000 });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /--watch prints text; --format json writes one report/);
});
