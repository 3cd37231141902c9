/**
 * When launches are profiled, and where their reports go (docs/profiling.md):
 *
 * - `cuda.profile(() => …, { gpu })` profiles the launches `work` makes and returns the report (or a
 *   promise of it when `work` is async);
 * - `CUDASCRIPT_PROFILE=out.json` (what `cudascript profile` sets for the program it runs; also under
 *   tsx, Vitest or node) profiles every launch of the process and writes the report there when the
 *   process exits (`%p` in the name: the process id); `CUDASCRIPT_PROFILE_GPU` picks the estimate's GPU.
 *
 * Kept free of the simulator and the compiler: `cuda` imports this module at start-up.
 */
import * as fs from "node:fs";
import { CudaScriptError } from "../errors";
import type { LaunchProfile, ProfileReport } from "./report";
import { DEFAULT_GPU, gpuSpec } from "./gpus";

export interface ProfileOptions {
  /** The GPU of the roofline estimate (gpus.ts ids: a100, h100, t4, …; default a100). */
  readonly gpu?: string;
}

interface Collector {
  readonly gpu: string;
  readonly launches: LaunchProfile[];
}

const scopes: Collector[] = [];
let fromEnv: Collector | undefined | null;

function envCollector(): Collector | undefined {
  if (fromEnv !== undefined) return fromEnv ?? undefined;
  // `%p` becomes the process id: one report per process under a test runner that runs files in several.
  const out = process.env.CUDASCRIPT_PROFILE?.replace(/%p/g, String(process.pid));
  if (!out) {
    fromEnv = null;
    return undefined;
  }
  const gpu = process.env.CUDASCRIPT_PROFILE_GPU || DEFAULT_GPU;
  gpuSpec(gpu); // CSR090 now, not at exit
  const c: Collector = { gpu, launches: [] };
  fromEnv = c;
  process.on("exit", () => {
    const report: ProfileReport = { version: 1, gpu: c.gpu, launches: c.launches };
    try {
      fs.writeFileSync(out, JSON.stringify(report, null, 1));
    } catch (e) {
      process.stderr.write(`cudascript: error CSR093: CUDASCRIPT_PROFILE=${out}: cannot write the profile (${(e as Error).message}); name a writable file\n`);
      process.exitCode = process.exitCode || 1;
    }
  });
  return c;
}

/** The GPUs of the active collectors, or undefined when no launch is being profiled now. */
export function profilingGpus(): string[] | undefined {
  const env = envCollector();
  if (!env && scopes.length === 0) return undefined;
  return [...(env ? [env] : []), ...scopes].map((c) => c.gpu);
}

/** Hands a profiled launch to every active collector (`build` makes its entry for a GPU). */
export function recordLaunch(build: (gpu: string) => LaunchProfile): void {
  const env = envCollector();
  for (const c of [...(env ? [env] : []), ...scopes]) c.launches.push(build(c.gpu));
}

/** Refuses profiling on the GPU backend: its counts come from the simulator (CSR091). */
export function checkProfilingBackend(kind: string, what: string): void {
  if (kind !== "simulator")
    throw new CudaScriptError("CSR091", `${what} counts on the simulator, but this program runs on the ${kind} backend: run it with --backend simulator (CUDASCRIPT_BACKEND=simulator), or use Nsight Compute on the GPU`);
}

/**
 * `cuda.profile(work, { gpu })`: runs `work`, profiling its launches on the simulator, and returns the
 * report of those launches (a promise of it when `work` returns a promise).
 */
export function profile(work: () => unknown, options: ProfileOptions = {}): ProfileReport | Promise<ProfileReport> {
  const gpu = options.gpu ?? DEFAULT_GPU;
  gpuSpec(gpu);
  const c: Collector = { gpu, launches: [] };
  scopes.push(c);
  const done = (): ProfileReport => {
    const i = scopes.lastIndexOf(c);
    if (i >= 0) scopes.splice(i, 1);
    return { version: 1, gpu, launches: c.launches };
  };
  let r: unknown;
  try {
    r = work();
  } catch (e) {
    done();
    throw e;
  }
  if (r && typeof (r as Promise<unknown>).then === "function")
    return (r as Promise<unknown>).then(
      () => done(),
      (e: unknown) => {
        done();
        throw e;
      },
    );
  return done();
}

// At start-up: a process run with CUDASCRIPT_PROFILE writes its report at exit even when it launches no
// kernel (an empty report, which `cudascript profile` prints as such). An unknown GPU is left to the
// first launch, which reports CSR090 (a process must not fail to start over it).
if (process.env.CUDASCRIPT_PROFILE) {
  try {
    envCollector();
  } catch {
    // CSR090: envCollector left unset, so the first launch tries again and throws it.
  }
}
