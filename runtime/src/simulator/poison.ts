/**
 * Poison mode (issue 32 item 4; docs/simulator.md, "Poison mode"): `configureSimulator({ uninitialized:
 * "poison" })`, `cudascript run --uninitialized poison`, `CUDASCRIPT_UNINITIALIZED=poison`. Shared
 * memory — the memory a GPU leaves uninitialised — is filled at the start of every block with NaN
 * (floats; f16 the quiet NaN 0x7e00) or bytes of 0xCD (integers and bools) instead of zeros, so a plain
 * run (no sanitizer) shows what a GPU could show: a result computed from a value nobody wrote comes out
 * NaN or garbage instead of silently right. The fill values are emitted into each kernel
 * (compiler/src/js/emit/shadow-values.ts poisonValue); the launch says which to use (`L.poison`).
 *
 * Not poisoned, because they are defined on a GPU too: `cuda.deviceArray` / `deviceArrayLike` /
 * `toDevice(a, { copy: false })` (zeroed on every backend: docs/host-api.md, "New arrays start zeroed")
 * and local arrays (zero-initialised by the generated C++).
 */
import { CudaScriptError } from "../errors";

/** What memory no thread wrote holds on the simulator: zeros (reproducible, the default) or the poison pattern. */
export type UninitializedMemory = "zero" | "poison";

export const UNINITIALIZED_MEMORY: readonly UninitializedMemory[] = ["zero", "poison"];

/** Refuses another value (CSR018), naming the accepted ones; `from` is how it was given. */
export function checkUninitializedMemory(value: unknown, from: string): void {
  if (value !== undefined && !UNINITIALIZED_MEMORY.includes(value as UninitializedMemory))
    throw new CudaScriptError("CSR018", `${from} takes 'zero' or 'poison', not '${String(value)}': 'poison' fills shared memory with NaN (floats) or 0xCD bytes (integers) at every block, as garbage a GPU could hold; 'zero' (the default) fills it with zeros`);
}

/** The launch flag the emitted code reads (`L.poison`). */
export function poisonLaunch(mode: UninitializedMemory | undefined): boolean {
  return mode === "poison";
}
