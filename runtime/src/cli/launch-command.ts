/**
 * `cudascript launch [--launcher local|slurm|kubernetes] [-n N] <file.ts> [args...]`: one process per
 * rank of the same program (docs/distributed.md). The launchers are in ./launch: local.ts (processes
 * here), slurm.ts (srun / sbatch), kubernetes.ts (an Indexed Job and a headless Service).
 */
import type { Command } from "./args";
import { prepareJob } from "./launch/job";
import { parseLaunchOptions } from "./launch/options";

export const launchCommand: Command = async (argv) => {
  const options = parseLaunchOptions(argv);
  if (typeof options === "number") return options;
  if (options.launcher === "kubernetes") {
    // The pods build and run the program from the image: nothing is built here.
    const { launchKubernetes } = require("./launch/kubernetes") as typeof import("./launch/kubernetes");
    return launchKubernetes(options);
  }
  const job = await prepareJob(options, true);
  if (typeof job === "number") return job;
  if (options.launcher === "slurm") {
    const { launchSlurm } = require("./launch/slurm") as typeof import("./launch/slurm");
    return launchSlurm(options, job);
  }
  const { launchLocal } = require("./launch/local") as typeof import("./launch/local");
  return launchLocal(options, job);
};
