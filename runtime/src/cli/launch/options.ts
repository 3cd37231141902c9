/**
 * `cudascript launch`'s command line: `cudascript launch [options] file.ts [program arguments...]`;
 * as with `run`, options go before the file and everything after it is the program's.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseNumberOption, printUsageError, startCommand, type OptionSpecs } from "../args";
import { notRegularFile } from "../inputs";
import type { BackendRequest } from "../../host/device";

export const LAUNCH_USAGE = `Usage: cudascript launch [options] <file.ts> [program arguments...]

Builds the program once and starts one process per rank; each reads its rank from
'import { dist } from "cudascript"' (dist.rank, dist.size, dist.localRank) and the ranks meet
for collectives (dist.allReduce, …) at rank 0. Output lines are prefixed with their rank; the
first rank that fails stops the others, and its exit code is the job's.

Options:
  --launcher local|slurm|kubernetes
                             local (default): processes on this machine, one per GPU, or per
                             virtual device of the simulator;
                             slurm: srun (inside an allocation, or making one), or --sbatch;
                             kubernetes: an Indexed Job and a headless Service (--image)
  -n, --ranks <n>            how many ranks (default: the GPUs here, else 2; under slurm the
                             allocation's tasks, SLURM_NTASKS)
  --backend auto|gpu|simulator
                             where kernels run in every rank (default auto)
  --collective-timeout <s>   a collective or recv that waits longer for another rank fails with
                             CSR074 (default 300)
  --gpus-per-rank <n>        slurm: GPUs (GRES gpu) per task; kubernetes: nvidia.com/gpu per pod
                             (default 1 on the GPU backend, 0 on the simulator)
  --timeout <s>              stop the whole job after s seconds (default 0: no limit)
  --port <p>                 rank 0's rendezvous port (default: a free one; 29500 on Kubernetes)
  --workers <n>              simulator worker threads per rank (default: the cores / the ranks)
Slurm:
  --sbatch                   submit a batch job (sbatch --wait) instead of running srun
  --partition <name>         the partition (srun/sbatch -p)
Kubernetes:
  --image <ref>              the container image that holds the program and node (required)
  --namespace <ns>           the namespace (default: the kubeconfig's, else default)
  --name <name>              the Job's name (default: cudascript-<file>)
  --dry-run                  print the manifests (YAML) and start nothing
  -h, --help                 this text`;

const LAUNCH_OPTIONS: OptionSpecs = {
  launcher: { type: "string" },
  ranks: { type: "string", short: "n" },
  backend: { type: "string" },
  "collective-timeout": { type: "string" },
  timeout: { type: "string" },
  port: { type: "string" },
  workers: { type: "string" },
  sbatch: { type: "boolean" },
  partition: { type: "string" },
  image: { type: "string" },
  namespace: { type: "string" },
  name: { type: "string" },
  "gpus-per-rank": { type: "string" },
  "dry-run": { type: "boolean" },
};

export type LauncherName = "local" | "slurm" | "kubernetes";

export interface LaunchOptions {
  readonly file: string;
  readonly entry: string;
  readonly programArgs: string[];
  readonly launcher: LauncherName;
  readonly ranks?: number;
  readonly backend: BackendRequest;
  readonly collectiveTimeout: number;
  readonly timeout: number;
  readonly timeoutText: string;
  readonly port?: number;
  readonly workers?: number;
  readonly sbatch: boolean;
  readonly partition?: string;
  readonly image?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly gpusPerRank?: number;
  readonly dryRun: boolean;
}

/** Most ranks one launch starts (a bound on mistakes such as -n 100000 on a laptop; clusters go past it with srun directly). */
export const MAX_RANKS = 4096;

export function parseLaunchOptions(argv: readonly string[]): LaunchOptions | number {
  const args = startCommand(argv, LAUNCH_OPTIONS, LAUNCH_USAGE, { program: true });
  if (typeof args === "number") return args;
  const file = args.positional[0];
  if (!file) return printUsageError("name the program to launch, e.g. cudascript launch -n 4 examples/dist-montecarlo.ts", LAUNCH_USAGE);
  const entry = path.resolve(file);
  const unreadable = notRegularFile(entry);
  if (unreadable) {
    console.error(fs.existsSync(entry) ? `cudascript: cannot launch ${file}: ${unreadable}; give a TypeScript file` : `cudascript: no such file: ${file}`);
    return 2;
  }
  const launcher = (args.flags.get("launcher") as string | undefined) ?? "local";
  if (launcher !== "local" && launcher !== "slurm" && launcher !== "kubernetes") return printUsageError(`--launcher takes local, slurm or kubernetes, not '${launcher}'`, LAUNCH_USAGE);
  const number = (name: string, opts: { integer: boolean; min: number; max: number; unit?: string }): number | undefined | { error: string } => {
    const text = args.flags.get(name) as string | undefined;
    return text === undefined ? undefined : parseNumberOption(name, text, opts);
  };
  const ranks = number("ranks", { integer: true, min: 1, max: MAX_RANKS });
  const collectiveTimeout = number("collective-timeout", { integer: false, min: 0.001, max: 1e7, unit: "of seconds" });
  const timeout = number("timeout", { integer: false, min: 0, max: 1e9, unit: "of seconds (0 = no limit)" });
  const port = number("port", { integer: true, min: 1, max: 65535 });
  const workers = number("workers", { integer: true, min: 1, max: 1024 });
  const gpusPerRank = number("gpus-per-rank", { integer: true, min: 0, max: 64 });
  for (const n of [ranks, collectiveTimeout, timeout, port, workers, gpusPerRank]) if (typeof n === "object") return printUsageError(n.error, LAUNCH_USAGE);
  const backend = ((args.flags.get("backend") as string | undefined) ?? (process.env.CUDASCRIPT_BACKEND || "auto")) as BackendRequest;
  if (!["auto", "gpu", "simulator"].includes(backend)) return printUsageError(`--backend takes auto, gpu or simulator, not '${backend}'`, LAUNCH_USAGE);
  const only = (flag: string, where: LauncherName) => (args.flags.has(flag) && launcher !== where ? `--${flag} is an option of --launcher ${where}` : undefined);
  const misplaced = only("sbatch", "slurm") ?? only("partition", "slurm") ?? only("image", "kubernetes") ?? only("namespace", "kubernetes") ?? only("name", "kubernetes") ?? only("dry-run", "kubernetes");
  if (misplaced) return printUsageError(misplaced, LAUNCH_USAGE);
  if (launcher === "kubernetes" && !args.flags.has("image"))
    return printUsageError("--launcher kubernetes needs --image: the container image with node, cudascript and this program (see docs/distributed.md#kubernetes)", LAUNCH_USAGE);
  return {
    file,
    entry,
    programArgs: args.programArgs[0] === "--" ? args.programArgs.slice(1) : args.programArgs,
    launcher,
    ...(typeof ranks === "number" ? { ranks } : {}),
    backend,
    collectiveTimeout: (collectiveTimeout as number | undefined) ?? 300,
    timeout: (timeout as number | undefined) ?? 0,
    timeoutText: (args.flags.get("timeout") as string | undefined) ?? "0",
    ...(typeof port === "number" ? { port } : {}),
    ...(typeof workers === "number" ? { workers } : {}),
    sbatch: args.flags.has("sbatch"),
    ...(args.flags.has("partition") ? { partition: args.flags.get("partition") as string } : {}),
    ...(args.flags.has("image") ? { image: args.flags.get("image") as string } : {}),
    ...(args.flags.has("namespace") ? { namespace: args.flags.get("namespace") as string } : {}),
    ...(args.flags.has("name") ? { name: args.flags.get("name") as string } : {}),
    ...(typeof gpusPerRank === "number" ? { gpusPerRank } : {}),
    dryRun: args.flags.has("dry-run"),
  };
}
