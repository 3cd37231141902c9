/**
 * The GPU launch fast path: argument checking and packing specialised once per kernel signature, into
 * a kernelParams block allocated once per kernel and reused by every launch (issue 17, item 1).
 *
 * WHY (profiled before writing this; `node --cpu-prof`, heap growth per launch as the median of 41
 * batches of 50 launches, against the libcuda TEST DOUBLE — no GPU here):
 *  - The driver call itself is not the cost on our side: koffi calls a no-op C function with
 *    cuLaunchKernel's 11 parameters in 0.13 µs and allocates nothing when kernelParams is a prebuilt
 *    address. The double's cuLaunchKernel then costs 1.4 µs with no parameter and 6.8 µs with 16,
 *    most of it a vsnprintf per parameter byte for its JSON call log (now formatted by hand: 3.8 µs);
 *    that floor is the double's, not ours, and bench/launch.mjs prints it beside our figures.
 *  - Above it, the generic path spent, per launch: `k.launch(g, b)` re-normalising grid and block
 *    into fresh arrays, building the device limits object, a closure and the options object; the
 *    launcher's rest-argument array; per argument a `which`/`want` message string built before any
 *    check failed, a KernelArg object, closures for forEach; in the backend the module lookup, the
 *    O(n²) aliasing scan, a BigInt add per pointer, a message string per array for `live()`; in the
 *    bindings two dimension arrays, a DataView and a Uint8Array per argument to copy the bytes into
 *    the scratch block, a BigInt per slot address. Measured: 2.1 KB allocated per launch with no
 *    argument, 3.3 KB with 4 scalars, 5.7 KB with 4 arrays, 9.7 KB with 8 arrays (host API); 0.7–3 KB
 *    of it in the bindings alone; ~1 µs of JS per launch with scalars and ~5.5 µs with 8 arrays above
 *    the double's floor.
 *  - After (this module): 0 bytes allocated per launch once warm, through `k.launch(g, b)(…)`, for
 *    0–8 scalars and 1–8 arrays (the rest-argument array, the last allocation, is gone too).
 *
 * HOW: a LaunchPacker per loaded kernel (per CUDA context) holds one writer per parameter, chosen from
 * the parameter's kind, dtype and rank when the kernel is first launched, and one KernelParamBlock
 * (native-bindings prepared-launch.ts) whose `void *kernelParams[]` was written once. A writer checks
 * its argument with the generic path's acceptance rules (host/kernel.ts checkArg, gpu/backend.ts
 * launch and abi.ts pack) and writes its bytes straight into the argument's slots: scalars with the
 * same DataView setters as abi.ts, device pointers as two 32-bit halves of a number (GpuBuffer.address)
 * instead of a BigInt. A configured launcher (`k.launch(g, b, opts)`) prepares the cuLaunchKernel call
 * once (PreparedLaunch), so a launch is: the writers, a reference-equality aliasing test, one FFI call.
 *
 * FALLBACK: a writer never throws. Anything it does not accept exactly as the generic path would —
 * a wrong argument of any kind, a host array (copied around the launch), a complex scalar, a freed or
 * foreign buffer, two arguments on one allocation, a destroyed stream, another current device, a lost
 * context, a cooperative kernel, an array spanning 2^31 elements or more (CSR019), a state array the
 * kernel draws from in another layout than C order (CSR033), results being reported, a launch made
 * while this kernel's block is being packed (re-entrancy through a Proxy argument) — makes the fast
 * path return false, and the caller runs the generic path from the start: errors keep exactly their
 * codes and messages, and the property test (test/gpu/double-launch-packer.test.ts) holds the two paths to the same bytes and the same errors.
 */
import type { KernelParamBlock } from "@cudascript/native-bindings/cuda";
import { f16round, setFloat16 } from "../float16";
import type { AbiParam, ArgPlan } from "./abi";
import { isStatesLayout } from "../random/state-layout";
import { isDeviceArrayArgument } from "../backend";

/** Checks one argument and writes its slots; false when the generic path must take the launch. */
type ArgWriter = (view: DataView, v: unknown) => boolean;

/** What a writer needs of a device buffer (GpuBuffer's fields; structural, to keep this module free of backend.ts). */
interface FastBuffer {
  readonly bytes: number;
  readonly address: number;
  readonly record: { readonly freed: boolean; readonly device: unknown };
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;
const TWO_32 = 0x100000000;
const MAX_EXTENT = 0x7fffffff;

export class LaunchPacker {
  private readonly writers: readonly ArgWriter[];
  /** The buffer of each array argument of the launch being packed, in order. */
  private readonly buffers: (FastBuffer | undefined)[];
  /** Set while packing: a launch of this kernel made meanwhile (from user code run by a Proxy argument) goes the generic way. */
  private packing = false;

  /**
   * `isBuffer` tells a buffer of this backend (GpuBuffer); `device` is the DeviceState whose context
   * the kernel was loaded in: an array on another device goes the generic way (CSR014).
   */
  constructor(
    readonly plan: ArgPlan,
    readonly params: KernelParamBlock,
    private readonly isBuffer: (b: unknown) => b is FastBuffer,
    private readonly device: unknown,
    /** The parameters the kernel draws cuda.random numbers from: another layout than a state array's is CSR033 on the generic path. */
    private readonly states: ReadonlySet<number> = new Set(),
  ) {
    const offsets = params.offsets;
    const slotsOf = (i: number) => plan.slots.filter((s) => s.param === i).map((s) => offsets[plan.slots.indexOf(s)]!);
    this.buffers = new Array<FastBuffer | undefined>(plan.params.filter((p) => p.kind === "array").length).fill(undefined);
    let arrays = 0;
    this.writers = plan.params.map((p, i) => this.writerFor(p, slotsOf(i), p.kind === "array" ? arrays++ : -1, states.has(i)));
  }

  /**
   * Checks and packs every argument into `params.view`; false (nothing to launch) when the generic
   * path must run. After `true`, launch, then call `release()`.
   */
  pack(args: readonly unknown[]): boolean {
    const writers = this.writers;
    if (args.length !== writers.length || this.packing) return false;
    this.packing = true;
    try {
      const view = this.params.view;
      for (let i = 0; i < writers.length; i++) if (!writers[i]!(view, args[i])) return false;
      return this.buffersUsable();
    } finally {
      this.packing = false;
    }
  }

  /** Drops the last launch's buffers (held between pack and launch only, so they can be garbage-collected). */
  release(): void {
    this.buffers.fill(undefined);
  }

  /**
   * Once every argument is read (user code can run while they are: a Proxy argument's traps), the
   * buffers the writers saw: none freed meanwhile, and no two on one allocation. The generic path
   * refuses overlapping array arguments (CSR045, __restrict__ pointers); the fast path refuses,
   * conservatively, any two on one allocation, and leaves the exact overlap test to it.
   */
  private buffersUsable(): boolean {
    const buffers = this.buffers as readonly FastBuffer[];
    for (let i = 0; i < buffers.length; i++) {
      const a = buffers[i]!;
      if (a.record.freed) return false;
      if (a.bytes === 0) continue;
      for (let j = i + 1; j < buffers.length; j++) if (buffers[j] === a) return false;
    }
    return true;
  }

  private writerFor(p: AbiParam, slots: readonly number[], arrayIndex: number, states: boolean): ArgWriter {
    const at = slots[0]!;
    if (p.kind === "array") return p.dtype === "c64" || p.dtype === "c128" ? refuse : this.arrayWriter(p, slots, arrayIndex, states);
    switch (p.dtype) {
      // Numbers: the generic path takes any number (CSR004 otherwise) and, for integers, a whole one in
      // range (CSR012); each test below is exactly that range (NaN, fractions and ±Infinity fail it).
      case "f32":
        return (view, v) => typeof v === "number" && (view.setFloat32(at, v, true), true);
      case "f64":
        return (view, v) => typeof v === "number" && (view.setFloat64(at, v, true), true);
      case "f16":
        return (view, v) => typeof v === "number" && (setFloat16(view, at, f16round(v), true), true);
      case "i32":
        return (view, v) => typeof v === "number" && (v | 0) === v && (view.setInt32(at, v, true), true);
      case "u32":
        return (view, v) => typeof v === "number" && v >>> 0 === v && (view.setUint32(at, v, true), true);
      case "i16":
        return (view, v) => typeof v === "number" && (v << 16) >> 16 === v && (view.setInt16(at, v, true), true);
      case "u16":
        return (view, v) => typeof v === "number" && (v & 0xffff) === v && (view.setUint16(at, v, true), true);
      case "i8":
        return (view, v) => typeof v === "number" && (v << 24) >> 24 === v && (view.setInt8(at, v), true);
      case "u8":
        return (view, v) => typeof v === "number" && (v & 0xff) === v && (view.setUint8(at, v), true);
      case "bool":
        return (view, v) => (v === true || v === 1 ? (view.setUint8(at, 1), true) : (v === false || v === 0) && (view.setUint8(at, 0), true));
      case "i64":
        return (view, v) => typeof v === "bigint" && v >= I64_MIN && v <= I64_MAX && (view.setBigInt64(at, v, true), true);
      case "u64":
        return (view, v) => typeof v === "bigint" && v >= 0n && v <= U64_MAX && (view.setBigUint64(at, v, true), true);
      default:
        return refuse; // complex scalars ({ re, im } objects) take the generic path
    }
  }

  /** A device array of the parameter's dtype and rank, alive, on this device: pointer, extents, strides. */
  private arrayWriter(p: AbiParam, slots: readonly number[], arrayIndex: number, states: boolean): ArgWriter {
    const { dtype, rank } = p;
    const buffers = this.buffers;
    const isBuffer = this.isBuffer;
    const device = this.device;
    const [pointerAt] = slots;
    const extentAt = slots.slice(1, 1 + rank);
    const strideAt = slots.slice(1 + rank);
    const acceptsU8 = dtype === "bool"; // Array1D<bool> takes a u8 device array
    return (view, v) => {
      if (!isDeviceArrayArgument(v)) return false;
      const name = v.dtype.name;
      if (name !== dtype && !(acceptsU8 && name === "u8")) return false;
      const shape = v.shape;
      if (shape.length !== rank || v.freed) return false;
      const buffer = v.buffer;
      if (!isBuffer(buffer) || buffer.record.freed || buffer.record.device !== device || buffer.address < 0) return false;
      const offset = v.byteOffset;
      if (!Number.isInteger(offset) || offset < 0 || offset > buffer.bytes) return false;
      const strides = v.elementStrides;
      if (states && !isStatesLayout(shape[1]!, strides)) return false;
      if (rank === 1) {
        const n = shape[0]!;
        // A strided 1-D view is CSR059; more elements than an int holds CSR011.
        if ((strides[0] !== 1 && n > 1) || n > MAX_EXTENT) return false;
        view.setInt32(extentAt[0]!, n, true);
      } else {
        let last = 0; // the linear index of the last element: more than an int holds is CSR019
        for (let d = 0; d < rank; d++) {
          const n = shape[d]!;
          const s = strides[d]!;
          if (n > MAX_EXTENT || s > MAX_EXTENT) return false;
          if (n === 0) last = -Infinity;
          else last += (n - 1) * s;
          view.setInt32(extentAt[d]!, n, true);
          view.setInt32(strideAt[d]!, s, true);
        }
        if (last >= MAX_EXTENT) return false;
      }
      const address = buffer.address + offset;
      view.setUint32(pointerAt!, address % TWO_32, true);
      view.setUint32(pointerAt! + 4, Math.floor(address / TWO_32), true);
      buffers[arrayIndex] = buffer;
      return true;
    };
  }
}

const refuse: ArgWriter = () => false;
