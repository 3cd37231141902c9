/**
 * Arrays: how each array of a function is stored (kernel parameters with their extents and strides,
 * shared arrays in module variables, local and constant arrays) and the declarations that set them up.
 */
import type * as IR from "../../ir/nodes";
import { DTYPES } from "../../dtypes/table";
import { isComplex, isInt64, isNarrowInt, type ArrayType, type DType, type MemorySpace, type RecordType } from "../../ir/types";
import { recordNdParamSetup, recordParamSetup } from "../records";
import { ZERO64 } from "../int64";
import type { NStmt } from "../normalize";
import type { EmitContext } from "./context";
import { unwrittenFill } from "./shadow-values";

export interface ArrayInfo {
  readonly name: string;
  readonly dtype: DType;
  readonly space: MemorySpace;
  /** JS expression of the element storage (a typed array). */
  data: string;
  /** JS expression of each dimension's extent. */
  readonly dims: readonly string[];
  /** Sanitizer id of a shared array, or "param" for device-function array parameters (looked up). */
  readonly shId?: number | "param";
  /** Per-thread local array in a fission kernel: storage of all threads' copies. */
  perThread?: string;
  /** Device-function array parameter: JS expression of its first element's index in `data` (a view's offset). */
  readonly offset?: string;
  /**
   * JS expressions of the element stride of each dimension, where the layout is not C order by
   * construction: N-D kernel parameters (C, F or any strides) and device-function parameters. Absent:
   * row-major from `dims` (shared, local and constant arrays, 1-D kernel parameters).
   */
  readonly strides?: readonly string[];
  /** An array of records (js/records.ts): `dims` count records, `data` is the bytes. */
  readonly record?: RecordType;
}

/**
 * Per-thread storage for a scalar of this dtype: narrow integers are held widened, as computed; complex
 * values as objects in a plain Array; i64/u64 values (bigints in range) in a BigInt64Array /
 * BigUint64Array, whose loads and stores V8 compiles without allocating; an f16 scalar is always already
 * rounded, so a Float32Array holds it exactly and faster than a Float16Array.
 */
export function storeArrayName(d: DType): string {
  if (isComplex(d)) return "Array";
  if (d === "f16") return "Float32Array";
  return isNarrowInt(d) ? "Int32Array" : DTYPES[d].simArray;
}

/** The typed array holding an array's elements: complex arrays hold interleaved parts (two per element). */
export function storageArrayName(d: DType): string {
  return DTYPES[d].simArray;
}
/** Typed-array slots per element. */
export function slotsPerElement(d: DType): number {
  return isComplex(d) ? 2 : 1;
}

/** The zero an array of this dtype is filled with (BigInt64Array elements are bigints). */
export function zeroOf(d: DType): string {
  return isInt64(d) ? ZERO64 : "0";
}

/** The element strides of an array (row-major from its extents where it has none of its own). */
export function stridesOf(a: ArrayInfo): string[] {
  if (a.strides) return [...a.strides];
  return a.dims.map((_, d) => a.dims.slice(d + 1).join(" * ") || "1");
}

/** The array declarations of one function. */
export class ArrayDeclarations {
  constructor(private readonly cx: EmitContext) {}

  declareKernelParamArray(p: IR.Var, i: number, setup: string[]): void {
    const t = p.type as ArrayType;
    const n = this.cx.vn(p);
    if (t.record && t.rank > 1) {
      // An N-D record array (js/records.ts): its bytes' extents and strides, in records.
      const r = recordNdParamSetup(n, `$A[${i}]`, t.record, t.rank);
      setup.push(r.setup);
      this.cx.arrays.set(p, { name: p.name, dtype: t.dtype, space: "global", data: n, dims: r.dims, strides: r.strides, record: t.record });
    } else if (t.record) {
      setup.push(recordParamSetup(n, `$A[${i}]`, t.record));
      this.cx.arrays.set(p, { name: p.name, dtype: t.dtype, space: "global", data: n, dims: [`${n}$n`], record: t.record });
    } else if (t.rank === 1) {
      setup.push(`const ${n} = $A[${i}], ${n}$n = ${n}.length${isComplex(t.dtype) ? " >> 1" : ""};`);
      this.cx.arrays.set(p, { name: p.name, dtype: t.dtype, space: "global", data: n, dims: [`${n}$n`] });
    } else {
      // N-D: extents and element strides (C order, F order or any strides: docs/abi.md), or, in the
      // C-order emission of the kernel, the extents alone.
      const dims = Array.from({ length: t.rank }, (_, d) => `${n}$${d}`);
      if (this.cx.cOrderArrays) {
        setup.push(`const ${n} = $A[${i}].data${dims.map((d, k) => `, ${d} = $A[${i}].shape[${k}]`).join("")};`);
        this.cx.arrays.set(p, { name: p.name, dtype: t.dtype, space: "global", data: n, dims });
        return;
      }
      const strides = Array.from({ length: t.rank }, (_, d) => `${n}$s${d}`);
      setup.push(`const ${n} = $A[${i}].data${dims.map((d, k) => `, ${d} = $A[${i}].shape[${k}]`).join("")}${strides.map((d, k) => `, ${d} = $A[${i}].strides[${k}]`).join("")};`);
      this.cx.arrays.set(p, { name: p.name, dtype: t.dtype, space: "global", data: n, dims, strides });
    }
  }

  /** Registers an array declared in the body (shared, local, const). Returns setup code. */
  declareBodyArray(s: IR.ArrayDeclStmt | IR.ConstArrayDeclStmt, arrayKeys: ReadonlyMap<IR.Var, string> | undefined, setup: string[], perBlock: string[]): void {
    if (this.cx.arrays.has(s.v)) return;
    if (s.k === "constArrayDecl") {
      const js = this.cx.me.constNames.get(s.constName) ?? "$missingConst";
      const t = s.v.type as ArrayType;
      // A 2-D/3-D constant (cuda.ndarray) is its row-major values with the constant shape as extents.
      const dims = t.rank === 1 ? [`${js}.length${isComplex(t.dtype) ? " >> 1" : ""}`] : (t.shape ?? []).map(String);
      this.cx.arrays.set(s.v, { name: s.v.name, dtype: t.dtype, space: "const", data: js, dims });
      return;
    }
    const t = s.arrayType;
    const shape = t.shape ?? [1];
    if (t.space === "shared") {
      const key = arrayKeys?.get(s.v) ?? `${this.cx.fn.id}#${s.v.id}`;
      const dynamic = shape.length === 1 && shape[0] === 0;
      const st = this.cx.me.sharedStorage(dynamic ? `$dyn:${t.dtype}` : key, t, s.v.name);
      const local = this.cx.mode === "device" ? st.js : this.cx.vn(s.v);
      if (this.cx.mode !== "device") {
        const ctor = storageArrayName(t.dtype), slots = slotsPerElement(t.dtype);
        if (dynamic) setup.push(`const ${local} = ${st.js} = new ${ctor}($dynBuf, 0, Math.floor($dynBuf.byteLength / ${ctor}.BYTES_PER_ELEMENT / ${slots}) * ${slots});`);
        else setup.push(`const ${local} = ${st.js} = new ${ctor}(${shape.reduce((a, b) => a * b, 1) * slots});`);
        perBlock.push(`${local}.fill(${unwrittenFill(t.dtype, zeroOf(t.dtype))});`);
        if (this.cx.san) setup.push(`$S.register(${st.id}, ${local}, ${JSON.stringify(s.v.name)}); const { WP: $WP${st.id}, RP: $RP${st.id}, UO: $UO${st.id} } = $S.shadow(${st.id});`);
      }
      const dims = dynamic ? [`(${local}.length / ${slotsPerElement(t.dtype)})`] : shape.map(String);
      this.cx.arrays.set(s.v, { name: s.v.name, dtype: t.dtype, space: "shared", data: local, dims, shId: st.id });
      return;
    }
    // local
    const n = this.cx.vn(s.v);
    const size = shape.reduce((a, b) => a * b, 1);
    setup.push(`let ${n} = new ${storageArrayName(t.dtype)}(${size * slotsPerElement(t.dtype)});`);
    // In a fission kernel every local array may need one copy per thread; decided after the pieces are known.
    this.cx.arrays.set(s.v, { name: s.v.name, dtype: t.dtype, space: "local", data: n, dims: shape.map(String), perThread: this.cx.mode === "fission" ? "?" : undefined });
  }

  /** Shared arrays declared in (non-inlined) device functions this kernel reaches: allocated per launch. */
  deviceShared(setup: string[], perBlock: string[]): void {
    const seen = new Set<string>();
    const stack = [...this.cx.fn.callees];
    while (stack.length) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const f = this.cx.me.fns.get(id);
      if (!f) continue;
      stack.push(...f.callees);
      if (this.cx.me.syncFns.has(id)) continue;
      forEachArrayDecl(f.body, (s) => {
        if (s.k !== "arrayDecl" || s.arrayType.space !== "shared") return;
        const shape = s.arrayType.shape ?? [1];
        const dynamic = shape.length === 1 && shape[0] === 0;
        const T = storageArrayName(s.arrayType.dtype), slots = slotsPerElement(s.arrayType.dtype);
        const st = this.cx.me.sharedStorage(dynamic ? `$dyn:${s.arrayType.dtype}` : `${f.id}#${s.v.id}`, s.arrayType, s.v.name);
        if (dynamic) setup.push(`${st.js} = new ${T}($dynBuf, 0, Math.floor($dynBuf.byteLength / ${T}.BYTES_PER_ELEMENT / ${slots}) * ${slots});`);
        else setup.push(`${st.js} = new ${T}(${shape.reduce((a, b) => a * b, 1) * slots});`);
        perBlock.push(`${st.js}.fill(${unwrittenFill(s.arrayType.dtype, zeroOf(s.arrayType.dtype))});`);
        if (this.cx.san) setup.push(`$san.register(${st.id}, ${st.js}, ${JSON.stringify(s.v.name)});`);
      });
    }
  }
}

export function forEachArrayDecl(stmts: readonly (IR.Stmt | NStmt)[], f: (s: IR.ArrayDeclStmt | IR.ConstArrayDeclStmt) => void): void {
  for (const s of stmts) {
    if (s.k === "arrayDecl" || s.k === "constArrayDecl") f(s);
    else if (s.k === "if") {
      forEachArrayDecl(s.then, f);
      if (s.else) forEachArrayDecl(s.else, f);
    } else if (s.k === "loop") {
      forEachArrayDecl(s.init, f);
      forEachArrayDecl(s.body, f);
      forEachArrayDecl(s.update, f);
    } else if (s.k === "block" || s.k === "fnScope") forEachArrayDecl(s.body, f);
  }
}
