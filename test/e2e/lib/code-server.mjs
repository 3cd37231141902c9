/**
 * Starts and stops code-server (a real VS Code: workbench in the browser, real Node extension host)
 * with everything it writes under one run directory, and kills its whole process tree on stop.
 */
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/** Every descendant of pid (from /proc), deepest last. */
export function descendants(pid) {
  const children = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(Number(name));
  }
  const out = [];
  const walk = (p) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** Running (a zombie — killed, waiting to be reaped by a parent that may never do it — counts as gone). */
const alive = (pid) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true; // no /proc: trust kill(0)
  }
};

/** SIGTERM to the process group and every descendant, SIGKILL to whatever is left after `graceMs`. */
export async function killTree(pid, graceMs = 2000) {
  const all = new Set([pid, ...descendants(pid)]);
  const signal = (sig) => {
    try {
      process.kill(-pid, sig);
    } catch {
      /* not a group */
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
  const end = Date.now() + graceMs;
  while (Date.now() < end && [...all].some(alive)) {
    for (const p of [...all]) for (const d of alive(p) ? descendants(p) : []) all.add(d);
    await new Promise((r) => setTimeout(r, 100));
  }
  if ([...all].some(alive)) signal("SIGKILL");
  for (let i = 0; i < 20 && [...all].some(alive); i++) await new Promise((r) => setTimeout(r, 100));
  return [...all];
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Run directory layout: user data, extensions, config, TMPDIR and XDG dirs, all private to this run. */
export function prepareRunDir(runDir, settings = {}) {
  for (const d of ["ud/User", "ext", "tmp", "xdg/config", "xdg/data", "xdg/cache"]) mkdirSync(join(runDir, d), { recursive: true });
  const base = JSON.parse(readFileSync(join(here, "settings.json"), "utf8"));
  writeFileSync(join(runDir, "ud/User/settings.json"), JSON.stringify({ ...base, ...settings }, null, 2));
}

function runEnv(runDir, extra = {}) {
  return {
    ...process.env,
    TMPDIR: join(runDir, "tmp"),
    XDG_CONFIG_HOME: join(runDir, "xdg/config"),
    XDG_DATA_HOME: join(runDir, "xdg/data"),
    XDG_CACHE_HOME: join(runDir, "xdg/cache"),
    ...extra,
  };
}

/** `code-server --install-extension file.vsix` into the run's extensions dir; returns the installed folder. */
export function installVsix(bin, runDir, vsix) {
  const r = spawnSync(bin, ["--user-data-dir", join(runDir, "ud"), "--extensions-dir", join(runDir, "ext"), "--install-extension", vsix], {
    env: runEnv(runDir),
    encoding: "utf8",
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`installing ${vsix} failed:\n${r.stdout}\n${r.stderr}`);
  const dir = readdirSync(join(runDir, "ext")).find((d) => d.startsWith("cudascript.cudascript-vscode-"));
  if (!dir) throw new Error(`the extension is not in ${join(runDir, "ext")} after install:\n${r.stdout}`);
  return join(runDir, "ext", dir);
}

/**
 * Starts code-server on a free port, opening `folder`. Resolves once /healthz answers.
 * `trust`: false starts it with Workspace Trust on (the folder opens in Restricted Mode).
 */
export async function startCodeServer({ bin, runDir, folder, trust = true, env = {} }) {
  const port = await freePort();
  writeFileSync(join(runDir, "config.yaml"), `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const args = [
    "--config", join(runDir, "config.yaml"),
    "--bind-addr", `127.0.0.1:${port}`,
    "--auth", "none",
    "--disable-telemetry",
    "--disable-update-check",
    "--disable-getting-started-override",
    "--user-data-dir", join(runDir, "ud"),
    "--extensions-dir", join(runDir, "ext"),
  ];
  if (trust) args.push("--disable-workspace-trust");
  args.push(folder);
  const log = openSync(join(runDir, "cs.log"), "a");
  const child = spawn(bin, args, { env: runEnv(runDir, env), detached: true, stdio: ["ignore", log, log] });
  writeFileSync(join(runDir, "cs.pid"), String(child.pid));
  const url = `http://127.0.0.1:${port}`;
  const t0 = Date.now();
  let exited = false;
  child.on("exit", () => (exited = true));
  while (Date.now() - t0 < 60_000) {
    if (exited) throw new Error(`code-server exited at start:\n${readFileSync(join(runDir, "cs.log"), "utf8").slice(-3000)}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    port,
    url,
    pid: child.pid,
    remote: (p) => `vscode-remote://127.0.0.1:${port}${p}`,
    async stop() {
      const killed = await killTree(child.pid);
      const left = killed.filter(alive);
      if (left.length) throw new Error(`processes still alive after stop: ${left.join(" ")}`);
      return killed;
    },
  };
}

export function saveLog(runDir, outDir, name) {
  const f = join(runDir, "cs.log");
  if (existsSync(f)) copyFileSync(f, join(outDir, name));
}
