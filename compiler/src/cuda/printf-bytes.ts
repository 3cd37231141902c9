/**
 * Accounting for kernel console.log output, so the GPU backend can say when CUDA's printf FIFO
 * overwrote some of it (runtime/src/gpu/printf-overflow.ts reads the counter; CSR050).
 *
 * CUDA's device printf FIFO is circular: a launch that prints more than it holds overwrites its
 * oldest output, and nothing reports it. So every module that prints defines one 64-bit device
 * counter, PRINTF_BYTES_SYMBOL, and every printf site adds (atomically) a LOWER BOUND of the bytes
 * its record takes in the FIFO. The runtime warns only when even that lower bound exceeds the FIFO:
 * an overestimate could warn about output that was not lost.
 *
 * The record layout is not documented by NVIDIA, so the bound rests only on what the device side
 * of printf is given and what the host needs to format the record later. NVRTC lowers
 * `printf(fmt, a, b, …)` to the PTX system call `vprintf(.param .b64 format, .param .b64 valist)`:
 * the format's 64-bit address and the address of a buffer in the calling thread's local memory
 * holding the arguments after C's default promotions (float → double; char, short, bool → int),
 * each at its natural alignment. The host formats the text only at a synchronization, long after
 * the thread's local memory is gone, so the record must hold:
 *  - what identifies the format: its 64-bit address (8 bytes), or else its characters (at least
 *    its length plus the terminating NUL): at least min(8, length + 1) bytes;
 *  - every argument's value: 4 bytes for an int, 8 for a double;
 *  - for a `%s` argument (how a bool prints "true"/"false"), its address (8 bytes) or else its
 *    characters: at least min(8, 5) — "true" and its NUL.
 * Any header, record length, padding or alignment the driver adds only makes the record larger,
 * and is left out on purpose.
 */

/**
 * The counter's name: `extern "C"`, so the PTX global (and the runtime's cuModuleGetGlobal) uses it
 * as is; the `cs_` prefix is reserved (names.ts), so no kernel or variable name can collide with it. The runtime keeps its own copy of this string (it must not load the compiler at run time);
 * the GPU backend tests check that the two agree on a module NVRTC compiled.
 */
export const PRINTF_BYTES_SYMBOL = "cs_printf_bytes";

/** One printf argument, as the generated code passes it. */
export type PrintfArgKind = "int" | "double" | "string";

/** The lower bound (see above) of the bytes one printf record takes in CUDA's printf FIFO. */
export function printfRecordLowerBound(format: string, args: readonly PrintfArgKind[]): number {
  const formatBytes = Math.min(8, Buffer.byteLength(format, "utf8") + 1);
  let bytes = formatBytes;
  for (const a of args) bytes += a === "int" ? 4 : a === "double" ? 8 : Math.min(8, "true".length + 1);
  return bytes;
}
