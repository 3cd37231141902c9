/** `cudascript run`: the program's process never outlives the `cudascript run` process, nor leaves its temporary folder (used when the build cache cannot be written). */
import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { REPO } from "../simulator/helpers";

const CLI = path.join(REPO, "runtime", "dist", "cli", "main.js");
const FIX = path.join(REPO, "test", "runtime", "fixtures");

/** Whether a process runs (a zombie nobody has reaped yet counts as gone). */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function waitUntil(what: string, ok: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) assert.fail(`${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts `cudascript run` with a private TMPDIR; resolves once the program printed its pid. Its cache
 * folder cannot be written (a file stands in its place), so the program runs from a temporary folder:
 * the one case where a run leaves something behind to clean up.
 */
async function startRun(tmp: string, args: string[]) {
  const unwritableCache = path.join(tmp, "cache-is-a-file");
  fs.writeFileSync(unwritableCache, "");
  const env = { ...process.env, CUDASCRIPT_BACKEND: "", TMPDIR: tmp, CUDASCRIPT_CACHE_DIR: unwritableCache };
  const parent = spawn(process.execPath, [CLI, "run", ...args], { cwd: REPO, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  parent.stdout.on("data", (d) => (out += d));
  parent.stderr.on("data", (d) => (err += d));
  await waitUntil(`the program starts (stderr: ${err})`, () => /pid (\d+)/.test(out), 60_000);
  return { parent, childPid: Number(/pid (\d+)/.exec(out)![1]), stderr: () => err };
}

/** After a failed assertion, the test must not leave a spinning orphan (nor hang on its open pipes). */
function killIfRunning(pid: number | undefined): void {
  if (pid !== undefined && running(pid)) process.kill(pid, "SIGKILL");
}

const runFolders = (tmp: string) => fs.readdirSync(tmp).filter((n) => n.startsWith("cudascript-run-"));

test("without --timeout the program runs in the `cudascript run` process itself (as node runs it), which removes its temporary folder when it ends", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cs-lifetime-"));
  let pid: number | undefined;
  try {
    const run = await startRun(tmp, [path.join(FIX, "busy-forever.ts")]);
    pid = run.childPid;
    assert.equal(pid, run.parent.pid, "no child process");
    assert.equal(runFolders(tmp).length, 1, "the run made its folder");
    const exited = new Promise((r) => run.parent.on("exit", r));
    run.parent.kill("SIGTERM");
    await waitUntil("the program stops", () => !running(pid!), 10_000);
    await exited; // reaped: a zombie's pid still answers kill(pid, 0)
    // A signal's default action runs no JavaScript: the next run that builds removes the folder.
    const r = spawnSync(process.execPath, [CLI, "run", path.join(FIX, "check-error.ts")], { cwd: REPO, encoding: "utf8", env: { ...process.env, CUDASCRIPT_BACKEND: "", TMPDIR: tmp } });
    assert.equal(r.status, 1, r.stderr);
    assert.equal(runFolders(tmp).length, 0, "the folder of the killed run was removed by the next run");
  } finally {
    killIfRunning(pid);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("a program that ends removes the temporary folder it ran from (no --timeout: in the `cudascript run` process)", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cs-lifetime-"));
  try {
    const unwritableCache = path.join(tmp, "cache-is-a-file");
    fs.writeFileSync(unwritableCache, "");
    const env = { ...process.env, CUDASCRIPT_BACKEND: "", TMPDIR: tmp, CUDASCRIPT_CACHE_DIR: unwritableCache };
    const r = spawnSync(process.execPath, [CLI, "run", path.join(FIX, "oob.ts")], { cwd: REPO, encoding: "utf8", env });
    assert.equal(r.status, 1, r.stderr); // a kernel fault: the exit path that reports an error
    assert.match(r.stderr, /CSR\d+/);
    assert.equal(runFolders(tmp).length, 0, "the folder was removed at exit");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("when `cudascript run --timeout` is SIGKILLed, its program (a child process) stops and the temporary folder is removed", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cs-lifetime-"));
  let childPid: number | undefined;
  try {
    const run = await startRun(tmp, ["--timeout", "3600", path.join(FIX, "busy-forever.ts")]);
    childPid = run.childPid;
    const parent = run.parent;
    assert.equal(runFolders(tmp).length, 1, "the run made its folder");
    parent.kill("SIGKILL");
    await waitUntil("the orphaned program stops", () => !running(childPid!), 10_000);
    await waitUntil("the temporary folder is removed", () => runFolders(tmp).length === 0, 5_000);
  } finally {
    killIfRunning(childPid);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("the program stops at its --timeout by itself when the `cudascript run` process cannot stop it", async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cs-lifetime-"));
  let childPid: number | undefined;
  try {
    const run = await startRun(tmp, ["--timeout", "1", path.join(FIX, "busy-forever.ts")]);
    childPid = run.childPid;
    const parent = run.parent;
    // A stopped parent runs no timers: only the program's own deadline can end it.
    parent.kill("SIGSTOP");
    try {
      await waitUntil("the program stops at its own deadline", () => !running(childPid!), 15_000);
    } finally {
      parent.kill("SIGCONT");
    }
    const code = await new Promise<number | null>((r) => (parent.exitCode !== null ? r(parent.exitCode) : parent.on("exit", (c) => r(c))));
    assert.notEqual(code, 0);
    await waitUntil("the parent removed its folder", () => runFolders(tmp).length === 0, 5_000);
  } finally {
    killIfRunning(childPid);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("a later run removes the temporary folders of runs whose process is gone, and keeps those of live ones", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cs-lifetime-"));
  try {
    const gone = spawnSync(process.execPath, ["-e", ""]).pid!; // exited: its pid names no process
    const abandoned = path.join(tmp, `cudascript-run-${gone}-abc123`);
    const live = path.join(tmp, `cudascript-run-${process.pid}-def456`);
    fs.mkdirSync(abandoned);
    fs.writeFileSync(path.join(abandoned, "program.mjs"), "");
    fs.mkdirSync(live);
    const r = spawnSync(process.execPath, [CLI, "run", path.join(FIX, "check-error.ts")], { cwd: REPO, encoding: "utf8", env: { ...process.env, CUDASCRIPT_BACKEND: "", TMPDIR: tmp } });
    assert.equal(r.status, 1, r.stderr); // the build fails; the clean-up happened before it
    assert.ok(!fs.existsSync(abandoned), "the abandoned folder was removed");
    assert.ok(fs.existsSync(live), "a live run's folder was kept");
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
