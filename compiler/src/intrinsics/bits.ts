/**
 * Numba's bit operations `cuda.popc`, `cuda.brev`, `cuda.clz`, `cuda.ffs` on a 32-bit integer, and on a
 * bigint (i64/u64) the 64-bit instructions (`__popcll`, …). `Math.clz32(x)` is `clz` of a u32.
 */
import { call, cast } from "../cuda/precedence";
import { param, sig, type IntrinsicRecord } from "./record";

interface BitOp {
  readonly name: "popc" | "brev" | "clz" | "ffs";
  readonly text: string;
  readonly cuda: string;
  /** The 64-bit result is the argument's type (brev) rather than an i32. */
  readonly sameType?: true;
  /** The CUDA function takes a signed int / long long (clz, ffs). */
  readonly signedArg?: true;
  /** The simulator's 32-bit version (rt.popc, …). */
  readonly js32: (x: string) => string;
}

const BIT_OPS: readonly BitOp[] = [
  { name: "popc", text: "Number of set bits of `x`.", cuda: "__popc", js32: (x) => `rt.popc(${x})` },
  { name: "brev", text: "The bits of `x` in reverse order (a u32; a u64 for a bigint).", cuda: "__brev", sameType: true, js32: (x) => `rt.brev(${x})` },
  { name: "clz", text: "Number of leading zero bits of `x` (32 for 0; 64 for a bigint 0).", cuda: "__clz", signedArg: true, js32: (x) => `Math.clz32(${x})` },
  { name: "ffs", text: "Position (1-based) of the least significant set bit of `x`, 0 if none.", cuda: "__ffs", signedArg: true, js32: (x) => `rt.ffs(${x})` },
];

function bitRecord(op: BitOp): IntrinsicRecord {
  return {
    name: op.name,
    paths: [`cuda.${op.name}`],
    numba: `cuda.${op.name}(x)`,
    effect: "pure",
    uniformity: "args",
    signatures: [sig(op.sameType ? "T" : "i32", param("x", "bits"))],
    doc: { signature: `cuda.${op.name}(x: number | bigint): ${op.sameType ? "u32 | u64" : "i32"}`, text: `${op.text} On a bigint (i64/u64): the 64-bit instruction.`, cuda: `${op.cuda}(x) / ${op.cuda}ll(x)` },
    cuda: (c) => {
      const wide = c.argDTypes[0] === "u64";
      const fn = wide ? `${op.cuda}ll` : op.cuda;
      return call(fn, op.signedArg ? [cast(wide ? "long long" : "int", c.args[0]!).t] : c.t);
    },
    // A u64 argument: the 64-bit versions (js/int64.ts).
    js: (c) => (c.argDTypes[0] === "u64" ? c.i64(`$L.${op.name}64(${c.args[0]})`) : op.js32(c.args[0]!)),
  };
}

export const BIT_RECORDS: readonly IntrinsicRecord[] = BIT_OPS.map(bitRecord);
