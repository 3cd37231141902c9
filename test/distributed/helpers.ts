/** Running `cudascript launch` from the tests, and telling whether any process of a job outlived it. */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { REPO } from "../simulator/helpers";

export const CLI = path.join(REPO, "runtime", "dist", "cli", "main.js");
export const FIXTURES = path.join(REPO, "test", "distributed", "fixtures");

export interface Launched {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The pids the ranks printed (`pid N`). */
  readonly pids: number[];
}

/** `cudascript launch …` to its end (killed after `limitMs`, which fails the test that sees code null). */
export function launch(args: readonly string[], env: NodeJS.ProcessEnv = {}, limitMs = 120_000): Promise<Launched> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "launch", ...args], { cwd: REPO, env: { ...process.env, CUDASCRIPT_BACKEND: "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      const pids = [...stdout.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));
      resolve({ code, stdout, stderr, pids });
    });
  });
}

/** Whether a process runs (a zombie nobody has reaped yet counts as gone). */
export function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** The pids still running after up to `ms` (ranks may take a moment to be reaped). */
export async function survivors(pids: readonly number[], ms = 3000): Promise<number[]> {
  const end = Date.now() + ms;
  for (;;) {
    const alive = pids.filter(running);
    if (alive.length === 0 || Date.now() > end) {
      for (const pid of alive) process.kill(pid, "SIGKILL"); // never leave one behind for the next test
      return alive;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
