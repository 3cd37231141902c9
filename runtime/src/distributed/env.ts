/**
 * Where this process stands in a distributed job: its rank, the job's size, its GPU on the node and
 * where the ranks meet. `cudascript launch` sets the CUDASCRIPT_* variables; under Slurm (srun) and
 * Kubernetes (an Indexed Job) the scheduler's own variables give the rank, so a rank started by them
 * directly (`srun node app.mjs`) still knows where it stands. No variable at all: one rank of one.
 */
import { CudaScriptError } from "../errors";

/** The variables `cudascript launch` passes to each rank (and the Kubernetes manifests set). */
export const DistEnv = {
  rank: "CUDASCRIPT_RANK",
  size: "CUDASCRIPT_WORLD_SIZE",
  localRank: "CUDASCRIPT_LOCAL_RANK",
  /** host:port of rank 0's rendezvous. */
  address: "CUDASCRIPT_DIST_ADDR",
  /** Only the port: the host is the first node of the Slurm step (srun sets the node list, not the launcher). */
  port: "CUDASCRIPT_DIST_PORT",
  /** A token of this job: rank 0 turns away connections from another job's ranks. */
  job: "CUDASCRIPT_DIST_JOB",
  /** Seconds a collective or recv waits for the other ranks before CSR074. */
  timeout: "CUDASCRIPT_DIST_TIMEOUT",
} as const;

/** The default collective time limit: long enough for a slow simulator kernel between two collectives on one rank. */
export const DEFAULT_COLLECTIVE_TIMEOUT_S = 300;

/** The least time ranks have to meet (see DistPlacement.rendezvousMs). */
export const MIN_RENDEZVOUS_MS = 60_000;

export interface DistPlacement {
  readonly rank: number;
  readonly size: number;
  readonly localRank: number;
  /** Where rank 0 listens; undefined for a job of one rank. */
  readonly host?: string;
  readonly port?: number;
  /** The collective time limit, in milliseconds. */
  readonly timeoutMs: number;
  /**
   * How long the ranks have to meet at rank 0 (ms): the collective time limit, but at least a minute,
   * since ranks start at different times (a slow node, a pod pulling its image) before they can be late.
   */
  readonly rendezvousMs: number;
  readonly job: string;
  /** Which variables gave the rank, for messages: "cudascript launch", "Slurm", "Kubernetes" or "none". */
  readonly source: string;
}

function wholeNumber(name: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined || text === "") return undefined;
  if (!/^\d+$/.test(text) || Number(text) < min)
    throw new CudaScriptError("CSR070", `${name}=${text} is not a whole number${min > 0 ? ` ≥ ${min}` : ""}: cudascript launch sets it; unset it to run as one rank`);
  return Number(text);
}

/** The job as the environment describes it (throws CSR070 for variables that do not fit together). */
export function readPlacement(env: NodeJS.ProcessEnv = process.env): DistPlacement {
  let rank = wholeNumber(DistEnv.rank, env[DistEnv.rank], 0);
  let size = wholeNumber(DistEnv.size, env[DistEnv.size], 1);
  let localRank = wholeNumber(DistEnv.localRank, env[DistEnv.localRank], 0);
  let source = rank !== undefined ? "cudascript launch" : "none";
  if (rank === undefined && env.SLURM_PROCID !== undefined && env.SLURM_NTASKS !== undefined) {
    rank = wholeNumber("SLURM_PROCID", env.SLURM_PROCID, 0);
    size ??= wholeNumber("SLURM_NTASKS", env.SLURM_NTASKS, 1);
    localRank ??= wholeNumber("SLURM_LOCALID", env.SLURM_LOCALID, 0);
    source = "Slurm";
  } else if (rank === undefined && env.JOB_COMPLETION_INDEX !== undefined) {
    rank = wholeNumber("JOB_COMPLETION_INDEX", env.JOB_COMPLETION_INDEX, 0);
    localRank ??= 0; // one rank per pod
    source = "Kubernetes";
  }
  rank ??= 0;
  size ??= 1;
  localRank ??= 0;
  if (rank >= size) throw new CudaScriptError("CSR070", `rank ${rank} is not below the job's size ${size} (${source}): ranks are 0 to ${size - 1}`);
  const timeoutS = env[DistEnv.timeout] ? Number(env[DistEnv.timeout]) : DEFAULT_COLLECTIVE_TIMEOUT_S;
  if (!(timeoutS > 0) || !Number.isFinite(timeoutS))
    throw new CudaScriptError("CSR070", `${DistEnv.timeout}=${env[DistEnv.timeout]} is not a time limit: write a number of seconds > 0, e.g. 60`);
  const job = env[DistEnv.job] ?? env.SLURM_JOB_ID ?? "";
  const timeoutMs = Math.round(timeoutS * 1000);
  const placement = { rank, size, localRank, timeoutMs, rendezvousMs: Math.max(timeoutMs, MIN_RENDEZVOUS_MS), job, source };
  if (size === 1) return placement;
  const { host, port } = rendezvousAddress(env, source);
  return { ...placement, host, port };
}

function rendezvousAddress(env: NodeJS.ProcessEnv, source: string): { host: string; port: number } {
  const address = env[DistEnv.address];
  if (address) {
    const m = /^(.+):(\d+)$/.exec(address);
    const port = m ? Number(m[2]) : NaN;
    if (!m || !(port > 0 && port < 65536)) throw new CudaScriptError("CSR070", `${DistEnv.address}=${address} is not host:port (e.g. 127.0.0.1:29500)`);
    return { host: m[1]!.replace(/^\[(.*)\]$/, "$1"), port };
  }
  const portText = env[DistEnv.port];
  const nodes = env.SLURM_STEP_NODELIST ?? env.SLURM_JOB_NODELIST ?? env.SLURM_NODELIST;
  if (portText && nodes) {
    const port = wholeNumber(DistEnv.port, portText, 1)!;
    return { host: firstHost(nodes), port };
  }
  throw new CudaScriptError(
    "CSR070",
    `a job of several ranks (${source}) needs rank 0's address: start it with cudascript launch, or set ${DistEnv.address}=host:port (or ${DistEnv.port} under Slurm)`,
  );
}

/**
 * The first host of a Slurm host list (`node[07-09,12],gpu3` → `node07`): rank 0 of a step runs on
 * the first node of the step (srun's default block distribution).
 */
export function firstHost(hostList: string): string {
  const m = /^([^,[]*)(?:\[([^\]]*)\])?/.exec(hostList.trim())!;
  const prefix = m[1]!;
  if (m[2] === undefined) return prefix;
  const first = m[2].split(",")[0]!.split("-")[0]!;
  return prefix + first;
}
