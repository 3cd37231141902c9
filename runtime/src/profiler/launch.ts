/**
 * A profiled launch on the simulator: the profiling variant of the kernel's module (variant.ts) runs
 * in the calling thread (one executor, so one set of counters sees every block in order) with the
 * launch's counters (counters.ts) as `L.profile`; its report entry goes to every active collector.
 */
import type { KernelArtifact } from "@cudascript/compiler/artifact";
import { CudaScriptError } from "../errors";
import type { ExecRequest, Executor } from "../simulator/executor";
import { LaunchCounters } from "./counters";
import { launchProfile } from "./report";
import { recordLaunch } from "./session";
import { profileVariant } from "./variant";

/** `addresses`: the device address of each argument's memory (the simulator's address space). */
export function runProfiled(executor: Executor, artifact: KernelArtifact, req: Omit<ExecRequest, "variant">, addresses?: ReadonlyMap<ArrayBufferLike, number>): void {
  if (req.cooperative)
    throw new CudaScriptError("CSR092", `kernel '${req.kernel}' synchronises its whole grid (g.sync()): the profiler cannot count it yet; profile a version without the grid barrier`);
  const counters = new LaunchCounters(addresses);
  executor.run({ ...req, variant: profileVariant(artifact), profile: counters });
  recordLaunch((gpu) => launchProfile(req.kernel, req.grid, req.block, counters, gpu));
}
