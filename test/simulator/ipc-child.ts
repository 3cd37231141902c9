/**
 * The other process of the IPC tests (test/simulator/ipc.test.ts, test/gpu/double-ipc.test.ts): opens
 * the array whose handle it is given, reports what it reads, writes through it (a copy, and on the
 * simulator a kernel), closes it and exits. argv[2] is JSON: { handle, shape, dtype, options?, kernel? }.
 * Prints one JSON line: { read } or { error: { code, message } }.
 */
import { cuda, CudaScriptError, f64, type IpcHandle, type OpenIpcArrayOptions } from "cudascript";
import { compileSource, kernel } from "./helpers";

interface Job {
  readonly handle: IpcHandle | string;
  readonly shape: number[];
  readonly options?: OpenIpcArrayOptions;
  /** Launch a kernel adding 1000 to every element (simulator: kernels run; the GPU double runs none). */
  readonly kernel?: boolean;
  /** Open the handle twice (two arrays over the same memory). */
  readonly twice?: boolean;
}

function main(): void {
  const job = JSON.parse(process.argv[2]!) as Job;
  try {
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
    console.log(JSON.stringify({ read, after, freedCode, backend: cuda.backend }));
  } catch (e) {
    console.log(JSON.stringify({ error: { code: e instanceof CudaScriptError ? e.code : undefined, message: e instanceof Error ? e.message : String(e) } }));
  }
}

main();
