/**
 * Exceptions in kernels on the GPU (issue 31 item 2). A RaiseStmt (`throw new Error(…)`, a failed
 * `console.assert`) becomes a call of cs_raise_record (out of line) and cs_raise_exit. The record: claim the module's device-side error record by compare-and-swap (the first
 * thread to raise wins, later ones leave it alone), write the site, block, thread and the message's
 * values into it, publish it, and end the thread (PTX `exit`). The GPU backend reads the record at the
 * next synchronization (runtime/src/gpu/kernel-errors.ts) and throws the same CSR085 the simulator
 * throws, its message formatted on the host from the site's format (the device has no strings to build).
 *
 * Sites are numbered over the WHOLE module (every kernel and device function, in module order), not
 * over the kernels one generation selects, so that every PTX module of an artifact and the runtime
 * (raiseSites(artifact.ir)) agree on what a number means.
 */
import type * as IR from "../ir/nodes";
import type { DType } from "../ir/types";
import { forEachStmt } from "../ir/visit";

/** The record's PTX name (`extern "C"`; `cs_` is reserved, names.ts). The runtime keeps its own copy. */
export const RAISE_RECORD_SYMBOL = "cs_error_record";
/** Values a message may show (template substitutions; a complex value takes two). */
export const MAX_RAISE_VALUES = 8;
/**
 * The record: 16 u64 words. [0] state (0 free, 1 being written, 2 written), [1] site, [2..4] block x y z,
 * [5..7] thread x y z, [8..15] the message's values as 64-bit patterns (an f64's bits, an integer
 * sign-extended, a bool 0/1).
 */
export const RAISE_RECORD_WORDS = 16;

export interface RaiseSite {
  /** The function whose code raises (a kernel or a device function). */
  readonly fn: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** printf-like, as a RaiseStmt's (lower-raise.ts). */
  readonly format: string;
  /** The dtype of each value, to decode its bits. */
  readonly values: readonly DType[];
}

/** Every raise of the module, numbered as the generated code numbers them. */
export function raiseSites(module: IR.IrModule): RaiseSite[] {
  const out: RaiseSite[] = [];
  for (const f of [...module.kernels, ...module.deviceFunctions])
    forEachStmt(f.body, (s) => {
      if (s.k !== "raise") return;
      out.push({ fn: f.name, file: s.span.file, line: s.span.line, col: s.span.col, format: s.format, values: s.args.map((a) => (a.type.kind === "scalar" ? a.type.dtype : "f64")) });
    });
  return out;
}

/** Where a site is in `raiseSites`: by its place in the source, which is unique per raise. */
export function raiseSiteKey(span: IR.Span): string {
  return `${span.file}:${span.start}`;
}

/** The u64 bit pattern of a message value, as C++ (`expr` is its C++ text). */
export function raiseValueBits(dtype: DType, expr: string): string {
  if (dtype === "f64" || dtype === "f32" || dtype === "f16") return `(unsigned long long)__double_as_longlong((double)(${expr}))`;
  if (dtype === "bool") return `((${expr}) ? 1ull : 0ull)`;
  if (dtype === "u64") return `(unsigned long long)(${expr})`;
  return `(unsigned long long)(long long)(${expr})`;
}

export const RAISE_PRELUDE = `/* The error record of a kernel that throws (compiler/src/cuda/raise.ts): the first thread to raise
   claims it by compare-and-swap; the GPU backend reads it at synchronization. */
extern "C" {
__device__ unsigned long long ${RAISE_RECORD_SYMBOL}[${RAISE_RECORD_WORDS}];
}
/* Out of line (noinline), so that a kernel that never throws keeps its registers for its own work. */
__device__ __noinline__ __attribute__((unused)) void cs_raise_record(unsigned long long site, int n, unsigned long long v0, unsigned long long v1, unsigned long long v2, unsigned long long v3, unsigned long long v4, unsigned long long v5, unsigned long long v6, unsigned long long v7) {
  if (atomicCAS(&${RAISE_RECORD_SYMBOL}[0], 0ull, 1ull) != 0ull) return;
  ${RAISE_RECORD_SYMBOL}[1] = site;
  ${RAISE_RECORD_SYMBOL}[2] = blockIdx.x; ${RAISE_RECORD_SYMBOL}[3] = blockIdx.y; ${RAISE_RECORD_SYMBOL}[4] = blockIdx.z;
  ${RAISE_RECORD_SYMBOL}[5] = threadIdx.x; ${RAISE_RECORD_SYMBOL}[6] = threadIdx.y; ${RAISE_RECORD_SYMBOL}[7] = threadIdx.z;
  const unsigned long long v[8] = {v0, v1, v2, v3, v4, v5, v6, v7};
  for (int i = 0; i < n; i++) ${RAISE_RECORD_SYMBOL}[8 + i] = v[i];
  __threadfence();
  atomicExch(&${RAISE_RECORD_SYMBOL}[0], 2ull);
}
/* The raising thread stops: PTX exit (the barriers of its block no longer wait for it). */
__device__ __forceinline__ __attribute__((unused)) void cs_raise_exit() {
#ifndef CUDASCRIPT_EMULATION
  asm volatile("exit;");
#else
  cs_emu_exit_thread();
#endif
}`;
