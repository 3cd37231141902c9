/**
 * What every launcher does before starting ranks: choose the backend (as `cudascript run` does), build
 * the program once, and make the environment every rank gets.
 */
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { CudaScriptError } from "../../errors";
import { chooseBackend, type BackendChoice } from "../../host/device";
import { probeGpu } from "../../host/gpu-probe";
import { DistEnv } from "../../distributed/env";
import type { LaunchOptions } from "./options";

export interface PreparedJob {
  readonly choice: BackendChoice;
  /** The GPUs of this machine (0 on the simulator). */
  readonly gpuCount: number;
  readonly bundle: string;
  readonly tempDir?: string;
  /** Variables every rank gets (not its rank: each launcher sets that its own way). */
  readonly env: NodeJS.ProcessEnv;
  readonly job: string;
}

/**
 * The script a rank runs: `node run-child.js <bundle> args…` (the same runner as `cudascript run
 * --timeout`), beside the CLI: in ../ of this file in the package, beside it where the CLI is one
 * bundle (the VS Code extension's).
 */
export const RANK_RUNNER = [path.join(__dirname, "..", "run-child.js"), path.join(__dirname, "run-child.js")].find((f) => fs.existsSync(f)) ?? path.join(__dirname, "..", "run-child.js");

/** Variables of an enclosing job that must not leak into this job's ranks. */
const INHERITED = [DistEnv.rank, DistEnv.size, DistEnv.localRank, DistEnv.address, DistEnv.port, DistEnv.job, "CUDASCRIPT_DEVICE", "CUDASCRIPT_DEADLINE", "CUDASCRIPT_DEADLINE_LABEL"];

export function jobError(code: "CSR073" | "CSR074" | "CSR075" | "CSR076" | "CSR077", message: string): string {
  return `cudascript: error ${new CudaScriptError(code, message).message}`;
}

export async function prepareJob(options: LaunchOptions, build: boolean): Promise<PreparedJob | number> {
  let choice: BackendChoice;
  try {
    choice = chooseBackend(options.backend);
  } catch (e) {
    if (e instanceof CudaScriptError) {
      console.error(`cudascript: --backend ${options.backend}: ${e.message}`);
      return 1;
    }
    throw e;
  }
  const probe = choice.kind === "gpu" ? probeGpu() : undefined;
  const gpuCount = probe?.ok ? probe.devices.length : 0;
  let bundle = options.entry;
  let tempDir: string | undefined;
  if (build) {
    const { cachedBuild } = require("../run-command") as typeof import("../run-command");
    const gpuArchs = probe?.ok ? [...new Set(probe.devices.map((d) => d.arch))] : undefined;
    const program = await cachedBuild(options.entry, gpuArchs ? { cudaArchs: gpuArchs } : {});
    if (!program) return 1;
    bundle = program.bundle;
    tempDir = program.tempDir;
  }
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED) delete env[name];
  const job = randomBytes(8).toString("hex");
  Object.assign(env, {
    CUDASCRIPT_BACKEND: choice.kind,
    CUDASCRIPT_RUN: "1",
    CUDASCRIPT_SANITIZE: "0",
    [DistEnv.job]: job,
    [DistEnv.timeout]: String(options.collectiveTimeout),
  });
  if (options.workers !== undefined) env.CUDASCRIPT_WORKERS = String(options.workers);
  return { choice, gpuCount, bundle, ...(tempDir ? { tempDir } : {}), env, job };
}

/**
 * A port nobody listens on now, for rank 0 to listen on a moment later. Chosen below the kernel's
 * ephemeral range (Linux: /proc/sys/net/ipv4/ip_local_port_range), which the kernel hands to outgoing
 * connections: a port the kernel picked with listen(0) can be taken by another process's connection
 * before rank 0 binds it (EADDRINUSE, CSR077 — seen when other programs run beside the launcher).
 * Elsewhere, or when no such port binds, the kernel picks one.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralRangeStart();
  if (low !== undefined && low > 11000)
    for (let attempt = 0; attempt < 32; attempt++) {
      const port = 10000 + Math.floor(Math.random() * (low - 10000));
      if (await bindsNow(port)) return port;
    }
  return listenOnce(0);
}

function ephemeralRangeStart(): number | undefined {
  try {
    const low = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : undefined;
  } catch {
    return undefined;
  }
}

function bindsNow(port: number): Promise<boolean> {
  return listenOnce(port).then(
    () => true,
    () => false,
  );
}

/** Listens on `port` of loopback (0: the kernel picks), closes, and gives the port. */
function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}

/** Exit code of a process ended by `signal`, as a shell reports it. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (os.constants.signals[signal] ?? 1);
}
