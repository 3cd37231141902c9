/**
 * Launch arguments packed per the compiler's argument ABI (docs/abi.md): each source parameter
 * becomes the C parameters the generated kernel declares (`GeneratedCuda.kernels[].params[].cParams`),
 * in that order —
 *
 *   scalar f32/f64/i32/u32/i16/u16/i8/u8/bool → `float`/`double`/`int`/`unsigned`/`short`/
 *                                               `unsigned short`/`signed char`/`unsigned char`/`bool`
 *   1-D array                                 → `T* x, int x_len` (contiguous)
 *   Array2D / Array3D                         → `T* a, int a_shape0, int a_shape1[, int a_shape2],
 *                                                int a_stride0, int a_stride1[, int a_stride2]` (element strides)
 *
 * A plan is built once per kernel from the cParams (checked against the artifact's signature and
 * against the PTX `.entry` signature the driver will read), with one reusable ArrayBuffer holding a
 * little-endian slot per C parameter. `pack` fills the slots and returns the per-parameter views;
 * cuLaunchKernel copies them before returning, so the same buffer serves every launch.
 */
import { DTYPES } from "@cudascript/compiler/dtypes";
import type { KernelArg } from "../backend";
import type { AnyDTypeName as DTypeName } from "../dtypes";
import { GpuError, GpuErrorCodes } from "./errors";
import { setFloat16 } from "../float16";

/** One C parameter of the generated kernel. */
export interface AbiSlot {
  /** The C declaration, e.g. "float* __restrict__ x", "int x_len". */
  readonly decl: string;
  /** What goes in it. */
  readonly kind: "scalar" | "pointer" | "extent" | "stride";
  /** Index of the source parameter (kernel signature) it comes from. */
  readonly param: number;
  /** For extents and strides: the dimension (0 for `x_len`). */
  readonly dim: number;
  /** The C type: "float", "int", … ("pointer" slots: the element type). */
  readonly cType: string;
  /** Bytes the kernel reads (8 for pointers). */
  readonly size: number;
  /** Byte offset of this slot in the plan's buffer (8-byte aligned). */
  readonly offset: number;
}

/** The parameter description the plan is built from (a subset of the compiler's CudaParam). */
export interface AbiParam {
  readonly name: string;
  readonly kind: "scalar" | "array";
  readonly dtype: DTypeName;
  readonly rank: number;
  readonly cParams: readonly string[];
}

/** The PTX `.param` sizes of the entry (from native-bindings' parsePtx). */
export interface PtxParamLike {
  readonly name: string;
  readonly size: number;
  readonly type: string;
}

/** The C element type of an array of `dtype` (bool arrays are `unsigned char*`). */
export function elementCType(dtype: DTypeName): string {
  return DTYPES[dtype].elementCType;
}

export function scalarCType(dtype: DTypeName): string {
  return DTYPES[dtype].cType;
}

const DECL = /^\s*(.+?)\s*(\*)?\s*(?:__restrict__\s*)?([A-Za-z_$][\w$]*)\s*$/;

/** Splits a C parameter declaration: "float* __restrict__ x" → { type: "float", pointer: true, name: "x" }. */
export function parseCParam(decl: string): { type: string; pointer: boolean; name: string } | undefined {
  const m = DECL.exec(decl);
  if (!m) return undefined;
  return { type: m[1]!.replace(/\s+/g, " ").trim(), pointer: m[2] === "*", name: m[3]! };
}

function abiBug(kernel: string, why: string): never {
  throw new GpuError(
    GpuErrorCodes.AbiMismatch,
    `kernel '${kernel}': the runtime's argument packing does not match the generated kernel (${why}). This is a CudaScript bug: please report it, with the kernel's source; meanwhile run on the simulator (--backend simulator).`,
  );
}

export class ArgPlan {
  readonly slots: readonly AbiSlot[];
  /** Total bytes of the packed arguments (what the kernel's parameter space holds). */
  readonly bytes: number;
  private readonly view: DataView;
  private readonly views: readonly Uint8Array[];
  /** Slot indices per source parameter. */
  private readonly byParam: readonly (readonly number[])[];

  constructor(
    readonly kernel: string,
    readonly params: readonly AbiParam[],
  ) {
    const slots: AbiSlot[] = [];
    const byParam: number[][] = [];
    let offset = 0;
    params.forEach((p, index) => {
      // An array: the pointer, one extent per dimension, and for N-D arrays one element stride per dimension.
      const expected = p.kind === "scalar" ? 1 : p.rank === 1 ? 2 : 1 + 2 * p.rank;
      if (p.cParams.length !== expected) abiBug(kernel, `parameter '${p.name}' has ${p.cParams.length} C parameters, expected ${expected}`);
      const own: number[] = [];
      p.cParams.forEach((decl, j) => {
        const c = parseCParam(decl);
        if (!c) abiBug(kernel, `cannot read the C parameter '${decl}'`);
        let kind: AbiSlot["kind"];
        let size: number;
        if (p.kind === "array" && j === 0) {
          if (!c.pointer) abiBug(kernel, `'${decl}' should be a pointer`);
          if (c.type !== elementCType(p.dtype)) abiBug(kernel, `'${decl}' should point to ${elementCType(p.dtype)} for ${p.dtype}`);
          kind = "pointer";
          size = 8;
        } else if (p.kind === "array") {
          if (c.pointer || c.type !== "int") abiBug(kernel, `'${decl}' should be an int ${j > p.rank ? "stride" : "extent"}`);
          kind = j > p.rank ? "stride" : "extent";
          size = 4;
        } else {
          if (c.pointer || c.type !== scalarCType(p.dtype)) abiBug(kernel, `'${decl}' should be a ${scalarCType(p.dtype)} for ${p.dtype}`);
          kind = "scalar";
          size = DTYPES[p.dtype].bytes;
        }
        own.push(slots.length);
        slots.push({ decl, kind, param: index, dim: kind === "extent" ? j - 1 : kind === "stride" ? j - 1 - p.rank : 0, cType: c.type, size, offset });
        // Every slot 8-byte aligned (a c128 slot takes 16): the driver copies `size` bytes from each.
        offset += Math.max(8, Math.ceil(size / 8) * 8);
      });
      byParam.push(own);
    });
    this.slots = slots;
    this.byParam = byParam;
    this.bytes = slots.reduce((n, s) => n + s.size, 0);
    const buffer = new ArrayBuffer(Math.max(offset, 8));
    this.view = new DataView(buffer);
    this.views = slots.map((s) => new Uint8Array(buffer, s.offset, s.size));
  }

  /**
   * Checks the plan against the PTX `.entry` parameters the driver reads (count and byte sizes);
   * a mismatch is a CudaScript bug (CSR046), reported before anything is launched.
   */
  checkPtx(ptxParams: readonly PtxParamLike[] | undefined): void {
    if (!ptxParams) return;
    if (ptxParams.length !== this.slots.length)
      abiBug(this.kernel, `the PTX entry has ${ptxParams.length} parameters, the ABI gives ${this.slots.length}: ${this.slots.map((s) => s.decl).join(", ")}`);
    this.slots.forEach((s, i) => {
      const p = ptxParams[i]!;
      if (p.size !== s.size) abiBug(this.kernel, `C parameter ${i} '${s.decl}' is ${s.size} bytes but PTX parameter ${p.name} (${p.type}) is ${p.size}`);
    });
  }

  /**
   * Packs one launch's arguments (already checked by the host API against the signature) and returns
   * one view per C parameter. `pointer(arg)` gives the device address of an array argument.
   */
  pack(args: readonly KernelArg[], pointer: (arg: Extract<KernelArg, { kind: "array" }>, index: number) => bigint): readonly Uint8Array[] {
    const v = this.view;
    const params = this.params;
    if (args.length !== params.length) abiBug(this.kernel, `${args.length} arguments for ${params.length} parameters`);
    for (let i = 0; i < params.length; i++) {
      const arg = args[i]!;
      const own = this.byParam[i]!;
      const first = this.slots[own[0]!]!;
      if (arg.kind === "scalar") {
        if (first.kind !== "scalar") abiBug(this.kernel, `argument ${i + 1} is a scalar, the kernel takes an array`);
        writeScalar(v, first.offset, arg.dtype === params[i]!.dtype ? arg.dtype : params[i]!.dtype, arg.value);
        continue;
      }
      if (first.kind !== "pointer") abiBug(this.kernel, `argument ${i + 1} is an array, the kernel takes a scalar`);
      v.setBigUint64(first.offset, pointer(arg, i), true);
      const shape = arg.shape;
      const rank = params[i]!.rank;
      if (rank === 1) {
        const n = shape.reduce((a, b) => a * b, 1);
        v.setInt32(this.slots[own[1]!]!.offset, checkExtent(this.kernel, params[i]!.name, n), true);
      } else {
        for (let d = 0; d < rank; d++) v.setInt32(this.slots[own[1 + d]!]!.offset, checkExtent(this.kernel, params[i]!.name, shape[d] ?? 1), true);
        const strides = arg.strides;
        for (let d = 0; d < rank; d++) v.setInt32(this.slots[own[1 + rank + d]!]!.offset, checkExtent(this.kernel, params[i]!.name, strides[d] ?? 1), true);
      }
    }
    return this.views;
  }
}

function checkExtent(kernel: string, name: string, n: number): number {
  if (n > 0x7fffffff)
    throw new GpuError("CSR011", `kernel '${kernel}': array '${name}' has ${n} elements along one dimension, but kernels index arrays with 32-bit ints (fewer than 2^31 elements): split the array`);
  return n;
}

export function writeScalar(v: DataView, offset: number, dtype: DTypeName, value: number | boolean | bigint | { re: number; im: number }): void {
  switch (dtype) {
    case "c64": {
      const z = value as { re: number; im: number };
      v.setFloat32(offset, z.re, true);
      v.setFloat32(offset + 4, z.im, true);
      return;
    }
    case "c128": {
      // The slot is 16-byte aligned for double2 (see the plan's offsets).
      const z = value as { re: number; im: number };
      v.setFloat64(offset, z.re, true);
      v.setFloat64(offset + 8, z.im, true);
      return;
    }
    // 8 bytes, exactly (the host passes a bigint; the BigInt of a number is only a safety net).
    case "i64":
      v.setBigInt64(offset, typeof value === "bigint" ? value : BigInt(Number(value)), true);
      return;
    case "u64":
      v.setBigUint64(offset, typeof value === "bigint" ? value : BigInt(Number(value)), true);
      return;
    case "f32":
      v.setFloat32(offset, value as number, true);
      return;
    case "f64":
      v.setFloat64(offset, value as number, true);
      return;
    case "i32":
      v.setInt32(offset, value as number, true);
      return;
    case "u32":
      v.setUint32(offset, value as number, true);
      return;
    case "i16":
      v.setInt16(offset, value as number, true);
      return;
    case "u16":
      v.setUint16(offset, value as number, true);
      return;
    case "i8":
      v.setInt8(offset, value as number);
      return;
    case "u8":
      v.setUint8(offset, value as number);
      return;
    case "bool":
      v.setUint8(offset, value === true || value === 1 ? 1 : 0);
      return;
    case "f16":
      setFloat16(v, offset, value as number, true);
      return;
  }
}
