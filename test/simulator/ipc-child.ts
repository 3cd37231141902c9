/**
 * The other process of the IPC tests (test/simulator/ipc.test.ts, test/gpu/double-ipc.test.ts): opens
 * the array whose handle it is given, reports what it reads, writes through it (a copy, and on the
 * simulator a kernel), closes it and exits. argv[2] is JSON: { handle, shape, dtype, options?, kernel? }.
 * Prints one JSON line: { read } or { error: { code, message } }.
 */
import { cuda, CudaScriptError, f64, type IpcHandle, type OpenIpcArrayOptions } from "cudascript";
import { collectGarbageUntil, openDriverDouble } from "../driver-double/test-double";
import { compileSource, kernel } from "./helpers";

/** cuIpcCloseMemHandle calls so far, when this process runs on the libcuda TEST DOUBLE. */
function closes(): number | undefined {
  const lib = process.env.CUDASCRIPT_LIBCUDA;
  return lib ? openDriverDouble(lib).calls("cuIpcCloseMemHandle").length : undefined;
}

interface Job {
  readonly handle: IpcHandle | string;
  readonly shape: number[];
  readonly options?: OpenIpcArrayOptions;
  /** Launch a kernel adding 1000 to every element (simulator: kernels run; the GPU double runs none). */
  readonly kernel?: boolean;
  /** Open the array, read it, drop it without free() and wait for its garbage collection to close the handle. */
  readonly drop?: boolean;
}

async function main(): Promise<void> {
  const job = JSON.parse(process.argv[2]!) as Job;
  try {
    if (job.drop) {
      const read = (() => [...(cuda.openIpcArray(job.handle, job.shape, f64, job.options).copyToHost() as Float64Array)])();
      const closedByGc = await collectGarbageUntil(() => (closes() ?? 0) >= 1);
      console.log(JSON.stringify({ read, closedByGc, closes: closes() }));
      return;
    }
    const a = cuda.openIpcArray(job.handle, job.shape, f64, job.options);
    const read = [...(a.copyToHost() as Float64Array)];
    // Write back: every element + 100, through a host copy.
    a.copyToDevice(Float64Array.from(read, (x) => x + 100));
    if (job.kernel) {
      const artifact = compileSource(`
import { cuda } from "cudascript";
export const addThousand = cuda.jit((a: Float64Array) => {
  const i = cuda.grid(1);
  if (i < a.length) a[i] += 1000;
});
`);
      kernel(artifact, "addThousand").launch(1, 64)(a);
    }
    const after = [...(a.copyToHost() as Float64Array)];
    a.free(); // closes the handle
    let freedCode: string | undefined;
    try {
      a.copyToHost();
    } catch (e) {
      freedCode = e instanceof CudaScriptError ? e.code : String(e);
    }
    console.log(JSON.stringify({ read, after, freedCode, backend: cuda.backend, closes: closes() }));
  } catch (e) {
    console.log(JSON.stringify({ error: { code: e instanceof CudaScriptError ? e.code : undefined, message: e instanceof Error ? e.message : String(e) } }));
  }
}

void main();
