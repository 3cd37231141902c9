/**
 * Privatized global atomics (see compiler/src/js/privatize.ts for when a kernel's array qualifies).
 * In a launch spread over workers, each executor gets a private copy of such an array, filled with
 * the identity of the array's atomic class; the kernel applies its atomics to the copy with plain
 * operations, and when the executor's share of the launch is done, `mergePrivate` folds the copy into
 * the real (shared) array with `Atomics` operations or compare-and-swap loops, so executors merging
 * at the same time are correct. Elements still holding the identity are skipped (merging them would
 * not change anything).
 *
 * Integers give exactly what the un-privatized launch gives (add/sub modulo 2³², and/or/xor/max/min are
 * exact). Float add sums each executor's contributions first and merges the partial sums: the same
 * value up to rounding order — which is unspecified on a GPU too. Float max/min are exact.
 */
import type { DTypeName } from "../dtypes";

export type PrivatizeOp = "add" | "and" | "or" | "xor" | "max" | "min";

/** One privatizable kernel parameter (SimKernelInfo.privatize). */
export interface PrivSpec {
  readonly param: number;
  readonly name: string;
  readonly op: PrivatizeOp;
  readonly dtype: DTypeName;
}

type Elements = Int32Array | Uint32Array | Float32Array | Float64Array;

export interface PrivateCopy {
  readonly spec: PrivSpec;
  /** The argument's real elements (shared memory). */
  readonly real: Elements;
  readonly copy: Elements;
}

/** The value that leaves every element unchanged under `op`. */
export function identity(op: PrivatizeOp, dtype: DTypeName): number {
  const float = dtype === "f32" || dtype === "f64";
  switch (op) {
    case "add":
      return float ? -0 : 0; // x + -0 === x for every x, -0 included
    case "or":
    case "xor":
      return 0;
    case "and":
      return -1; // all ones (a Uint32Array stores 0xffffffff)
    case "max":
      return float ? -Infinity : dtype === "i32" ? -2147483648 : 0;
    case "min":
      return float ? Infinity : dtype === "i32" ? 2147483647 : 4294967295;
  }
}

function elementsOf(arg: unknown): Elements {
  return (ArrayBuffer.isView(arg) ? arg : (arg as { data: Elements }).data) as Elements;
}

/**
 * Replaces each privatized argument (typed array, or `{ data, shape }`) with a private copy filled with
 * the identity. Returns the per-parameter flags for `LaunchData.priv` and the copies to merge.
 */
export function privatizeArgs(args: unknown[], specs: readonly PrivSpec[]): { flags: boolean[] | undefined; copies: PrivateCopy[] } {
  if (!specs.length) return { flags: undefined, copies: [] };
  const flags: boolean[] = args.map(() => false);
  const copies: PrivateCopy[] = [];
  for (const spec of specs) {
    const arg = args[spec.param];
    const real = elementsOf(arg);
    const Ctor = real.constructor as new (n: number) => Elements;
    const copy = new Ctor(real.length);
    const id = identity(spec.op, spec.dtype);
    if (!Object.is(id, 0)) copy.fill(id);
    args[spec.param] = ArrayBuffer.isView(arg) ? copy : { ...(arg as object), data: copy };
    flags[spec.param] = true;
    copies.push({ spec, real, copy });
  }
  return { flags, copies };
}

const f32s = new Float32Array(1), f32b = new Int32Array(f32s.buffer);
const f64s = new Float64Array(1), f64b = new BigInt64Array(f64s.buffer);

/** Folds a private copy into the real array; safe while other executors do the same. */
export function mergePrivate(c: PrivateCopy): void {
  const { real, copy, spec } = c;
  const n = copy.length;
  const id = identity(spec.op, spec.dtype);
  if (spec.dtype === "i32" || spec.dtype === "u32") {
    const r = real as Int32Array | Uint32Array, p = copy as Int32Array | Uint32Array;
    const idv = spec.dtype === "u32" ? id >>> 0 : id | 0;
    for (let i = 0; i < n; i++) {
      const v = p[i]!;
      if (v === idv) continue;
      switch (spec.op) {
        case "add":
          Atomics.add(r, i, v);
          break;
        case "and":
          Atomics.and(r, i, v);
          break;
        case "or":
          Atomics.or(r, i, v);
          break;
        case "xor":
          Atomics.xor(r, i, v);
          break;
        case "max":
        case "min":
          for (;;) {
            const o = Atomics.load(r, i);
            const m = spec.op === "max" ? Math.max(o, v) : Math.min(o, v);
            if (m === o || Atomics.compareExchange(r, i, o, m) === o) break;
          }
          break;
      }
    }
    return;
  }
  // max/min as the kernel's atomics (Numba's rule): a NaN in the real array stays, ties keep it.
  const combine = spec.op === "add" ? (o: number, v: number) => o + v : spec.op === "max" ? (o: number, v: number) => (v > o ? v : o) : (o: number, v: number) => (v < o ? v : o);
  if (spec.dtype === "f32") {
    const iv = new Int32Array(real.buffer, real.byteOffset, real.length);
    for (let i = 0; i < n; i++) {
      const v = copy[i]!;
      if (Object.is(v, id)) continue;
      for (;;) {
        const ob = Atomics.load(iv, i);
        f32b[0] = ob;
        f32s[0] = combine(f32s[0]!, v);
        const nb = f32b[0]!;
        if (nb === ob || Atomics.compareExchange(iv, i, ob, nb) === ob) break;
      }
    }
    return;
  }
  const iv = new BigInt64Array(real.buffer, real.byteOffset, real.length);
  for (let i = 0; i < n; i++) {
    const v = copy[i]!;
    if (Object.is(v, id)) continue;
    for (;;) {
      const ob = Atomics.load(iv, i);
      f64b[0] = ob;
      f64s[0] = combine(f64s[0]!, v);
      const nb = f64b[0]!;
      if (nb === ob || Atomics.compareExchange(iv, i, ob, nb) === ob) break;
    }
  }
}
