/**
 * Undefined values under the sanitizer (issue 32 item 2; docs/simulator.md, "Undefined values"): the
 * emitted code carries each value's *origin* — the site of the read of unwritten shared memory it comes
 * from — beside the value (compiler/src/js/emit/shadow-values.ts), and calls the sanitizer's
 * `undefinedUse` where such a value matters. This file words that finding (CSR068) and keeps the
 * per-element origins of shared arrays (`UO` of each Shadow: 0 for a defined value, else origin + 1).
 */
import { KernelFault, type SimSite } from "../fault";
import { displayPath } from "../../fault-text";

/** What each use is called in the message ("used as …"). */
const USE_TEXT: Record<string, string> = {
  branch: "a branch condition",
  "loop condition": "a loop condition",
  index: "an array index",
  "global store": "a value stored to global memory",
  "atomic operand": "an atomic's operand",
  "printed value": "a printed value",
  "thrown value": "a value of a thrown error",
};

/** Where an origin is, for the message. */
function place(s: SimSite): string {
  return `${displayPath(s.file)}:${s.line}:${s.col}`;
}

/**
 * The CSR068 finding: an undefined value (read at `origin`) used at `use` where it matters. The caller
 * adds kernel, block and thread.
 */
export function undefinedUseFault(origin: SimSite | undefined, use: SimSite): KernelFault {
  const as = USE_TEXT[use.op ?? ""] ?? "a value that matters";
  const from = origin
    ? `it comes from the read of shared memory '${origin.array ?? "?"}' at ${place(origin)}${origin.fn !== use.fn ? ` (in '${origin.fn}')` : ""}, of an element no thread of this block wrote before (or a value computed from one); the simulator reads its fill there (0, or NaN / 0xCD bytes in poison mode), a GPU whatever the memory held`
    : "it comes from a read of shared memory no thread of this block wrote";
  return new KernelFault("CSR068", "undefined-value", `undefined value used as ${as}: ${from}. Write the element (and cuda.syncthreads()) before reading it, or keep the value away from results`, use, { array: origin?.array });
}

/** Origins of one shared array's elements, beside the sanitizer's WP/RP shadows. */
export function originShadow(length: number): Int32Array {
  return new Int32Array(length);
}
