// Kernel console.log on the GPU backend is device printf: the driver collects its output in a
// per-context FIFO (1 MiB by default) and prints it only at a synchronization point (or when the
// context is destroyed). Two consequences handled here: output still in the FIFO when the program
// ends without a synchronization would be lost, so every live backend synchronizes its contexts
// at exit; and the FIFO's size is a setting (CU_LIMIT_PRINTF_FIFO_SIZE) that the driver accepts
// only before the first launch of a kernel that prints.
import { CudaScriptError } from "../errors";
import { parseBytes } from "../sizes";

/** CSR049: an invalid printf buffer size, or one set after a printing kernel already ran. */
export const PRINTF_BUFFER_ERROR = "CSR049";

/** CUDA's default printf FIFO size. */
export const DEFAULT_PRINTF_BUFFER_BYTES = 1 << 20;

const HOW = "write a positive whole number of bytes or a size such as 8MiB (CUDA's default is 1 MiB)";

/** The printf FIFO size asked for: `option`, else CUDASCRIPT_PRINTF_BUFFER, else undefined (the driver's default). */
export function requestedPrintfBufferSize(option: number | undefined, env: NodeJS.ProcessEnv = process.env): number | undefined {
  if (option !== undefined) return checkedPrintfBufferSize(option, `printfBufferSize: ${String(option)}`);
  const text = env.CUDASCRIPT_PRINTF_BUFFER;
  if (!text) return undefined;
  return checkedPrintfBufferSize(parseBytes(text), `CUDASCRIPT_PRINTF_BUFFER=${text}`);
}

export function checkedPrintfBufferSize(bytes: number | undefined, what: string): number {
  if (bytes === undefined || !Number.isSafeInteger(bytes) || bytes <= 0) throw new CudaScriptError(PRINTF_BUFFER_ERROR, `${what} is not a printf buffer size: ${HOW}`);
  return bytes;
}

/** The error for a size change the driver refused because a kernel that prints already ran. */
export function printfBufferTooLate(device: string, bytes: number): CudaScriptError {
  return new CudaScriptError(
    PRINTF_BUFFER_ERROR,
    `the printf buffer of ${device} cannot be resized to ${bytes} bytes: a kernel that uses console.log has already been launched there, and CUDA fixes the size at that launch. Set it before the first such launch: CUDASCRIPT_PRINTF_BUFFER=${bytes} in the environment, or configureGpu({ printfBufferSize: ${bytes} }) at the start of the program.`,
  );
}

export interface FlushesAtExit {
  flushAtExit(): void;
}

// Weak: a backend dropped without dispose() must stay collectable. One 'exit' listener serves all.
const atExit = new Set<WeakRef<FlushesAtExit>>();
let listening = false;

/**
 * Synchronizes `backend` when the process exits, so device printf output still in the FIFO is
 * printed. 'exit' listeners run synchronously, which cuCtxSynchronize is. (Killed by a signal,
 * the process runs no listener: such output is lost, as in CUDA C++.)
 */
export function flushAtExit(backend: FlushesAtExit): WeakRef<FlushesAtExit> {
  const ref = new WeakRef(backend);
  atExit.add(ref);
  if (!listening) {
    listening = true;
    process.on("exit", () => {
      for (const r of atExit) r.deref()?.flushAtExit();
    });
  }
  return ref;
}

export function noFlushAtExit(ref: WeakRef<FlushesAtExit>): void {
  atExit.delete(ref);
}
