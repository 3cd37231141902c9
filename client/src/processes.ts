/**
 * Child processes for runs: each run gets its own process group, and stopping it kills the whole tree
 * (the CLI, the host program it starts, simulator workers), descendants first found through /proc so
 * that processes which left the group are not missed. No editor imports (unit-tested).
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";

/** PIDs of every descendant of `pid` (Linux: /proc; macOS: ps; Windows: none, taskkill /T does it). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  try {
    if (process.platform === "linux") {
      for (const name of fs.readdirSync("/proc")) {
        if (!/^\d+$/.test(name)) continue;
        let stat: string;
        try {
          stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
        } catch {
          continue;
        }
        // pid (comm) state ppid …: comm may contain spaces and parentheses, so split after the last ')'
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        const list = children.get(ppid) ?? [];
        list.push(Number(name));
        children.set(ppid, list);
      }
    } else if (process.platform !== "win32") {
      const out = execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" });
      for (const line of out.split("\n")) {
        const [p, pp] = line.trim().split(/\s+/).map(Number);
        if (!p || pp === undefined) continue;
        const list = children.get(pp) ?? [];
        list.push(p);
        children.set(pp, list);
      }
    }
  } catch {
    /* best effort */
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills `pid`, its process group and all its descendants: SIGTERM, then SIGKILL after `graceMs`. */
export async function killTree(pid: number, graceMs = 1500): Promise<void> {
  if (process.platform === "win32") {
    try {
      execFileSync("taskkill", ["/pid", String(pid), "/T", "/F"], { stdio: "ignore" });
    } catch {
      /* already gone */
    }
    return;
  }
  const all = [pid, ...descendants(pid)];
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig); // the group (spawned detached)
    } catch {
      /* not a group leader any more */
    }
    for (const p of all) {
      try {
        process.kill(p, sig);
      } catch {
        /* gone */
      }
    }
  };
  signal("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && all.some(alive)) await new Promise((r) => setTimeout(r, 50));
  // anything started meanwhile is killed too
  for (const p of descendants(pid)) if (!all.includes(p)) all.push(p);
  if (all.some(alive)) signal("SIGKILL");
}

export interface RunningProcess {
  readonly child: ChildProcess;
  readonly done: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): Promise<void>;
}

/** Spawns a command in its own process group, streaming stdout/stderr chunks to `onOutput`. */
export function start(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; onOutput: (text: string, stream: "stdout" | "stderr") => void },
): RunningProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: process.platform !== "win32",
    stdio: ["ignore", "pipe", "pipe"],
    windowsHide: true,
  });
  child.stdout!.setEncoding("utf8").on("data", (d: string) => options.onOutput(d, "stdout"));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => options.onOutput(d, "stderr"));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("error", (err) => {
      options.onOutput(`cannot start ${command}: ${err.message}\n`, "stderr");
      resolve({ code: null, signal: null });
    });
    child.on("close", (code, signal) => resolve({ code, signal }));
  });
  let killing: Promise<void> | undefined;
  return {
    child,
    done,
    kill: () => (killing ??= child.pid ? killTree(child.pid) : Promise.resolve()),
  };
}
