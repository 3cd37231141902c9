/**
 * `cudascript launch --launcher local -n N`: N processes on this machine, rank r on GPU r (modulo the
 * GPUs) or on virtual device r of the simulator. Rank 0 listens on a loopback port for the others.
 *
 * The first rank that fails stops the job: the others get SIGTERM, then SIGKILL after a grace period,
 * and the launcher exits with the failed rank's code. A rank killed by a signal is CSR075. Each rank runs
 * under the watchdog of `cudascript run --timeout` (run-watchdog.ts), so it also dies with the launcher
 * (even a SIGKILLed one): no rank outlives its job.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DistEnv } from "../../distributed/env";
import { PARENT_PID_ENV } from "../run-limits";
import { freePort, jobError, RANK_RUNNER, signalExitCode, type PreparedJob } from "./job";
import type { LaunchOptions } from "./options";
import { pipeLines, rankPrefix } from "./rank-output";

/** How long a rank told to stop (SIGTERM) has before it is killed. */
const STOP_GRACE_MS = 2000;

interface Rank {
  readonly rank: number;
  readonly child: ChildProcess;
  readonly output: Promise<void>;
  exited?: { code: number | null; signal: NodeJS.Signals | null };
  /** The rank reported another rank's failure (CSR073) rather than one of its own. */
  consequence: boolean;
}

export async function launchLocal(options: LaunchOptions, job: PreparedJob): Promise<number> {
  const size = options.ranks ?? (job.gpuCount > 0 ? job.gpuCount : 2);
  const port = options.port ?? (await freePort());
  const onGpu = job.choice.kind === "gpu";
  console.error(`cudascript: launching ${path.relative(process.cwd(), options.entry) || options.entry} as ${size} rank${size === 1 ? "" : "s"} on the ${onGpu ? `GPUs of this machine (${job.gpuCount})` : `simulator (${size} virtual devices)`}`);
  const deadline = options.timeout > 0 ? Math.ceil(Date.now() + options.timeout * 1000) : undefined;
  const workers = options.workers ?? Math.max(1, Math.floor(os.availableParallelism() / size));
  const ranks: Rank[] = [];
  for (let rank = 0; rank < size; rank++) {
    const env: NodeJS.ProcessEnv = {
      ...job.env,
      [DistEnv.rank]: String(rank),
      [DistEnv.size]: String(size),
      [DistEnv.localRank]: String(rank),
      [DistEnv.address]: `127.0.0.1:${port}`,
      CUDASCRIPT_DEVICE: String(onGpu ? rank % job.gpuCount : rank),
      CUDASCRIPT_WORKERS: job.env.CUDASCRIPT_WORKERS ?? String(workers),
      // The watchdog of run-child.ts: the rank dies with this process.
      [PARENT_PID_ENV]: String(process.pid),
    };
    if (!onGpu) env.CUDASCRIPT_SIM_DEVICES = String(size);
    if (deadline !== undefined) {
      env.CUDASCRIPT_DEADLINE = String(deadline);
      env.CUDASCRIPT_DEADLINE_LABEL = `--timeout ${options.timeoutText} s`;
    }
    const child = spawn(process.execPath, ["--enable-source-maps", RANK_RUNNER, job.bundle, ...options.programArgs], { stdio: ["ignore", "pipe", "pipe"], env });
    const prefix = (line: string) => ({ prefix: rankPrefix(rank), line });
    const errorPrefix = (line: string) => {
      if (CONSEQUENCE.test(line)) entry.consequence = true;
      return prefix(line);
    };
    const output = Promise.all([pipeLines(child.stdout!, process.stdout, prefix), pipeLines(child.stderr!, process.stderr, errorPrefix)]).then(() => {});
    const entry: Rank = { rank, child, output, consequence: false };
    ranks.push(entry);
  }
  return supervise(ranks, options, deadline, job.tempDir);
}

/** A rank's error that only reports another rank's failure: the job's cause is elsewhere. */
const CONSEQUENCE = /cudascript: error CSR073: /;

interface Failure {
  readonly rank: number;
  readonly code: number;
  readonly message?: string;
}

async function supervise(ranks: Rank[], options: LaunchOptions, deadline: number | undefined, tempDir: string | undefined): Promise<number> {
  // Every failure in the order the launcher saw it; the job's is chosen when all ranks have ended, since
  // ranks that ended because of another (CSR073) may be reaped before the rank that caused it.
  const failures: Failure[] = [];
  let stopped: Failure | undefined;
  let stopping = false;
  let killSent = false;
  const stopAll = () => {
    if (stopping) return;
    stopping = true;
    for (const r of ranks) if (!r.exited) r.child.kill("SIGTERM");
    setTimeout(() => {
      killSent = true;
      for (const r of ranks) if (!r.exited) r.child.kill("SIGKILL");
    }, STOP_GRACE_MS).unref();
  };
  const onSignal = (signal: NodeJS.Signals) => () => {
    stopped ??= { rank: -1, code: signalExitCode(signal), message: `cudascript: the job was stopped (${signal})` };
    stopAll();
  };
  const onInt = onSignal("SIGINT"), onTerm = onSignal("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  const timer =
    deadline === undefined
      ? undefined
      : setTimeout(() => {
          stopped ??= { rank: -1, code: 124, message: `cudascript: the job ran longer than --timeout ${options.timeoutText} s and was stopped` };
          stopAll();
        }, Math.max(0, deadline - Date.now()) + 2500);
  await Promise.all(
    ranks.map(
      (r) =>
        new Promise<void>((resolve) => {
          r.child.on("error", (e) => {
            failures.push({ rank: r.rank, code: 1, message: jobError("CSR076", `rank ${r.rank} could not be started: ${e.message}`) });
            r.exited = { code: 1, signal: null };
            stopAll();
            resolve();
          });
          r.child.on("exit", (code, signal) => {
            r.exited = { code, signal };
            // SIGTERM while stopping is ours, and SIGKILL once the grace period is over; any other end that is not 0 is a failure.
            const ours = stopping && (signal === "SIGTERM" || (signal === "SIGKILL" && killSent));
            if (!ours && (code !== 0 || signal)) {
              failures.push(
                signal
                  ? { rank: r.rank, code: signalExitCode(signal), message: jobError("CSR075", `rank ${r.rank} was killed by ${signal} (out of memory, or killed from outside); the other ranks were stopped`) }
                  : { rank: r.rank, code: code ?? 1 },
              );
              stopAll();
            }
            resolve();
          });
        }),
    ),
  );
  await Promise.all(ranks.map((r) => r.output));
  if (timer) clearTimeout(timer);
  process.off("SIGINT", onInt);
  process.off("SIGTERM", onTerm);
  if (tempDir) fs.rmSync(tempDir, { recursive: true, force: true });
  const cause = stopped ?? failures.find((f) => !ranks[f.rank]!.consequence) ?? failures[0];
  if (!cause) return 0;
  if (cause.message) console.error(cause.message);
  else console.error(`cudascript: rank ${cause.rank} failed (exit code ${cause.code}): its error is above; the other ranks were stopped`);
  return cause.code;
}
