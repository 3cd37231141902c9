/**
 * Atomic read-modify-write helpers of the simulator module, one per (operation, dtype, memory): Numba's
 * semantics for each operation (docs/kernel-language.md), JavaScript's Atomics where workers share the
 * memory, f16 through its bit tables (f16.ts), i64/u64 on bigint arrays.
 */
import type * as IR from "../../ir/nodes";
import { isInt64, type DType } from "../../ir/types";
import { HALF_TABLES, HALF_TABLES_NAME, halfAtomic } from "../f16";

/** The operations JavaScript's Atomics do in one call on an integer typed array (i32/u32, i64/u64). */
const ATOMICS_DIRECT: Partial<Record<IR.AtomicOp, string>> = { add: "Atomics.add(a, i, v)", sub: "Atomics.sub(a, i, v)", and: "Atomics.and(a, i, v)", or: "Atomics.or(a, i, v)", xor: "Atomics.xor(a, i, v)", exch: "Atomics.exchange(a, i, v)", compareAndSwap: "Atomics.compareExchange(a, i, e, v)" };

/**
 * The code of helper `name`, `function (a, i, v)` (`(a, i, e, v)` for compareAndSwap) returning the
 * element's old value: with `concurrent` (global memory) it picks, once per module instance, Atomics
 * operations or a compare-and-swap loop when other workers share the memory (`rt.concurrent`), and a
 * plain read-modify-write otherwise. Helpers it needs are asked for through `helper`.
 */
export function atomicHelperCode(name: string, op: IR.AtomicOp, dtype: DType, concurrent: boolean, helper: (name: string, code: string) => void): string {
  if (isInt64(dtype)) return atomicHelper64(name, op, dtype, concurrent);
  const args = op === "compareAndSwap" ? "a, i, e, v" : "a, i, v";
  const newValue = (o: string): string => {
    switch (op) {
      case "add":
        return `${o} + v`;
      case "sub":
        return `${o} - v`;
      case "and":
        return `${o} & v`;
      case "or":
        return `${o} | v`;
      case "xor":
        return `${o} ^ v`;
      case "exch":
        return "v";
      // Numba's rule (docs/kernel-language.md, as the CUDA prelude's CAS loops): only a strictly
      // greater (smaller) value replaces the element, so a NaN on either side and +0 vs -0 leave it;
      // nanmax/nanmin also replace a NaN element with a non-NaN value. Integers: max/min.
      case "max":
        return `(v > ${o} ? v : ${o})`;
      case "min":
        return `(v < ${o} ? v : ${o})`;
      case "nanmax":
        return `(v > ${o} || (${o} !== ${o} && v === v) ? v : ${o})`;
      case "nanmin":
        return `(v < ${o} || (${o} !== ${o} && v === v) ? v : ${o})`;
      case "inc":
        return `(${o} >= v ? 0 : ${o} + 1)`;
      case "dec":
        return `((${o} === 0 || ${o} > v) ? v : ${o} - 1)`;
      case "compareAndSwap":
        return `(${o} === e ? v : ${o})`;
    }
  };
  let plain = `function (${args}) { const o = a[i]; a[i] = ${newValue("o")}; return o; }`;
  let conc: string;
  if (dtype === "f16") {
    helper(HALF_TABLES_NAME, HALF_TABLES);
    ({ plain, concurrent: conc } = halfAtomic(args, newValue));
  } else if (dtype === "i32" || dtype === "u32") {
    const d = ATOMICS_DIRECT[op];
    conc = d
      ? `function (${args}) { return ${d}; }`
      : `function (${args}) { for (;;) { const o = Atomics.load(a, i); const n = ${newValue("o")}; if (Atomics.compareExchange(a, i, o, n) === o) return o; } }`;
  } else if (dtype === "f32") {
    helper("$f32s", "const $f32s = new Float32Array(1), $f32b = new Int32Array($f32s.buffer);");
    conc = `function (${args}) { const iv = rt.intView(a); for (;;) { const ob = Atomics.load(iv, i); $f32b[0] = ob; const o = $f32s[0]; $f32s[0] = ${newValue("o")}; if (Atomics.compareExchange(iv, i, ob, $f32b[0]) === ob) return o; } }`;
  } else {
    helper("$f64s", "const $f64s = new Float64Array(1), $f64b = new BigInt64Array($f64s.buffer);");
    conc = `function (${args}) { const iv = rt.intView(a); for (;;) { const ob = Atomics.load(iv, i); $f64b[0] = ob; const o = $f64s[0]; $f64s[0] = ${newValue("o")}; if (Atomics.compareExchange(iv, i, ob, $f64b[0]) === ob) return o; } }`;
  }
  return concurrent ? `const ${name} = rt.concurrent ? ${conc} : ${plain};` : `const ${name} = ${plain};`;
}

/**
 * i64/u64 atomics on a BigInt64Array / BigUint64Array: values are bigints, as the elements are. Stores
 * into these arrays wrap modulo 2^64 by themselves; Atomics.* work on them directly when the array is
 * shared between workers.
 */
function atomicHelper64(name: string, op: IR.AtomicOp, dtype: "i64" | "u64", concurrent: boolean): string {
  const args = op === "compareAndSwap" ? "a, i, e, v" : "a, i, v";
  const next: Partial<Record<IR.AtomicOp, string>> = {
    add: "o + v", sub: "o - v", and: "o & v", or: "o | v", xor: "o ^ v", exch: "v",
    max: "(v > o ? v : o)", nanmax: "(v > o ? v : o)", min: "(v < o ? v : o)", nanmin: "(v < o ? v : o)", compareAndSwap: "(o === e ? v : o)",
  };
  const n = next[op];
  if (!n) throw new Error(`CudaScript simulator: cuda.atomic.${op} on ${dtype}`);
  const plain = `function (${args}) { const o = a[i]; a[i] = ${n}; return o; }`;
  const d = ATOMICS_DIRECT[op];
  const conc = d
    ? `function (${args}) { return ${d}; }`
    : `function (${args}) { for (;;) { const o = Atomics.load(a, i); if (Atomics.compareExchange(a, i, o, ${n}) === o) return o; } }`;
  return concurrent ? `const ${name} = rt.concurrent ? ${conc} : ${plain};` : `const ${name} = ${plain};`;
}
