/**
 * `cudascript launch --launcher slurm`: the ranks are the tasks of one Slurm job step. `srun` runs them
 * (inside an allocation, `salloc`/`sbatch`, it uses that allocation; outside one it makes its own), or,
 * with `--sbatch`, a batch job runs that `srun` and the launcher waits for it (`sbatch --wait`).
 * Each task reads its rank from Slurm's variables (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID) and
 * finds rank 0 on the step's first node at CUDASCRIPT_DIST_PORT (distributed/env.ts).
 *
 * `srun --kill-on-bad-exit=1` ends every task when one fails; `--label` prefixes each line with its
 * task, which becomes `[rank r] `. A task killed by a signal is CSR075.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { DistEnv } from "../../distributed/env";
import { freePort, jobError, RANK_RUNNER, signalExitCode, type PreparedJob } from "./job";
import type { LaunchOptions } from "./options";
import { pipeLines, relabelSlurmLine } from "./rank-output";

/** Whether Slurm's commands are here (`srun --version` runs). */
export function slurmAvailable(command = "srun"): boolean {
  const r = spawnSync(command, ["--version"], { stdio: "ignore" });
  return r.status === 0;
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export async function launchSlurm(options: LaunchOptions, job: PreparedJob): Promise<number> {
  for (const command of options.sbatch ? ["sbatch", "srun"] : ["srun"])
    if (!slurmAvailable(command)) {
      console.error(jobError("CSR076", `--launcher slurm needs Slurm's ${command} on PATH, and it is not there (or does not run): run on a node of a Slurm cluster, or use --launcher local`));
      return 1;
    }
  const port = options.port ?? (await freePort());
  const env: NodeJS.ProcessEnv = { ...job.env, [DistEnv.port]: String(port) };
  if (job.choice.kind === "gpu") delete env.CUDASCRIPT_SIM_DEVICES;
  const inAllocation = process.env.SLURM_JOB_ID !== undefined;
  const tasks = options.ranks ?? (inAllocation ? undefined : 2);
  const srunArgs = [
    ...(tasks !== undefined ? [`--ntasks=${tasks}`] : []),
    "--kill-on-bad-exit=1",
    "--label",
    ...(options.partition && !options.sbatch ? [`--partition=${options.partition}`] : []),
    // GPUs as Slurm counts them (GRES gpu): one per rank on the GPU backend unless told otherwise.
    ...((options.gpusPerRank ?? (job.choice.kind === "gpu" ? 1 : 0)) > 0 ? [`--gpus-per-task=${options.gpusPerRank ?? 1}`] : []),
    ...(options.timeout > 0 ? [`--time=${Math.max(1, Math.ceil(options.timeout / 60))}`] : []),
    process.execPath,
    "--enable-source-maps",
    RANK_RUNNER,
    job.bundle,
    ...options.programArgs,
  ];
  const what = path.relative(process.cwd(), options.entry) || options.entry;
  if (options.sbatch) return sbatch(options, job, env, srunArgs, what);
  console.error(`cudascript: launching ${what} with srun${tasks !== undefined ? ` as ${tasks} ranks` : " in this allocation"} on the ${job.choice.kind === "gpu" ? "GPUs" : "simulator"}`);
  const child = spawn("srun", srunArgs, { stdio: ["ignore", "pipe", "pipe"], env });
  return superviseSrun(child, options, job);
}

async function superviseSrun(child: ReturnType<typeof spawn>, options: LaunchOptions, job: PreparedJob): Promise<number> {
  let killedTask: { task: string; how: string } | undefined;
  let timedOut = false;
  const stderrLines = (line: string) => {
    const killed = /task (\d+): (Killed|Terminated|Segmentation fault|Aborted)/i.exec(line);
    if (killed && !killedTask) killedTask = { task: killed[1]!, how: killed[2]! };
    return relabelSlurmLine(line);
  };
  const output = Promise.all([pipeLines(child.stdout!, process.stdout, relabelSlurmLine), pipeLines(child.stderr!, process.stderr, stderrLines)]);
  const forward = (sig: NodeJS.Signals) => () => child.kill(sig);
  const onInt = forward("SIGINT"), onTerm = forward("SIGTERM");
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  const timer =
    options.timeout > 0
      ? setTimeout(() => {
          timedOut = true;
          child.kill("SIGTERM");
          setTimeout(() => child.kill("SIGKILL"), 5000).unref();
        }, options.timeout * 1000 + 2500)
      : undefined;
  const result = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; error?: Error }>((resolve) => {
    child.on("error", (error) => resolve({ code: 1, signal: null, error }));
    child.on("exit", (code, signal) => resolve({ code, signal }));
  });
  await output;
  if (timer) clearTimeout(timer);
  process.off("SIGINT", onInt);
  process.off("SIGTERM", onTerm);
  if (job.tempDir) fs.rmSync(job.tempDir, { recursive: true, force: true });
  if (result.error) {
    console.error(jobError("CSR076", `srun could not be started: ${result.error.message}`));
    return 1;
  }
  const code = result.code ?? (result.signal ? signalExitCode(result.signal) : 1);
  if (timedOut) {
    console.error(`cudascript: the job ran longer than --timeout ${options.timeoutText} s and was stopped`);
    return 124;
  }
  if (killedTask) {
    console.error(jobError("CSR075", `rank ${killedTask.task} was killed (${killedTask.how}); srun stopped the other ranks`));
    return code === 0 ? 137 : code;
  }
  if (code !== 0) console.error(`cudascript: the job failed (srun's exit code ${code}): the failing rank's error is above; srun stopped the other ranks`);
  return code;
}

/**
 * Where the batch script and its output go: a folder in the working directory, which on a cluster is
 * on a file system the compute node shares (the node's own /tmp is not the submitting machine's);
 * the system's temporary folder when the working directory cannot be written.
 */
function outputFolder(): string {
  try {
    return fs.mkdtempSync(path.join(process.cwd(), ".cudascript-sbatch-"));
  } catch {
    return fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-sbatch-"));
  }
}

/** `--sbatch`: a batch script that runs the same srun, submitted with `sbatch --wait`; its output file is printed when it ends. */
async function sbatch(options: LaunchOptions, job: PreparedJob, env: NodeJS.ProcessEnv, srunArgs: string[], what: string): Promise<number> {
  const dir = outputFolder();
  try {
    const out = path.join(dir, "job-%j.out");
    const script = [
      "#!/bin/sh",
      `#SBATCH --ntasks=${options.ranks ?? 2}`,
      `#SBATCH --output=${out}`,
      ...(options.partition ? [`#SBATCH --partition=${options.partition}`] : []),
      ...(options.timeout > 0 ? [`#SBATCH --time=${Math.max(1, Math.ceil(options.timeout / 60))}`] : []),
      `exec srun ${srunArgs.filter((a) => !a.startsWith("--ntasks=") && !a.startsWith("--time=")).map(shellQuote).join(" ")}`,
      "",
    ].join("\n");
    const file = path.join(dir, "job.sh");
    fs.writeFileSync(file, script, { mode: 0o755 });
    console.error(`cudascript: submitting ${what} with sbatch as ${options.ranks ?? 2} ranks; waiting for it to end`);
    const child = spawn("sbatch", ["--wait", "--parsable", file], { stdio: ["ignore", "pipe", "inherit"], env });
    let jobId = "";
    child.stdout!.on("data", (d) => (jobId += d));
    const code = await new Promise<number>((resolve) => {
      child.on("error", () => resolve(-1));
      child.on("exit", (c, s) => resolve(c ?? (s ? signalExitCode(s) : 1)));
    });
    if (code === -1) {
      console.error(jobError("CSR076", "sbatch could not be started"));
      return 1;
    }
    const outFile = out.replace("%j", jobId.trim().split(";")[0]!);
    if (fs.existsSync(outFile)) {
      for (const line of fs.readFileSync(outFile, "utf8").split("\n").filter((l) => l !== "")) {
        const p = relabelSlurmLine(line);
        process.stdout.write(p.prefix + p.line + "\n");
      }
    }
    if (code !== 0) console.error(`cudascript: batch job ${jobId.trim()} failed (exit code ${code}): the failing rank's error is above`);
    return code;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    if (job.tempDir) fs.rmSync(job.tempDir, { recursive: true, force: true });
  }
}
