/**
 * The simulated device's one address space: every allocation gets a virtual 64-bit device address,
 * 256-byte aligned as `cudaMalloc`'s are, from a first-fit allocator over a fixed virtual range whose
 * `free()` gives the range back (neighbouring free ranges merge, so freed addresses are reused, as on
 * a GPU). `find()` resolves any address inside a live allocation to that allocation and the offset in
 * it, so a pointer handed out through the CUDA Array Interface, DLPack or an IPC handle means
 * something: a foreign view of (pointer, bytes) aliases the allocation's own memory.
 *
 * It holds only addresses and a payload per allocation (the simulator's SimBuffer); the bytes live
 * elsewhere (one SharedArrayBuffer per allocation), so kernels index memory exactly as before and the
 * address space costs nothing per access. The sanitizer's aliasing and the profiler's sector counts
 * are meant to reuse it: one address space, built once.
 *
 * Addresses are JavaScript numbers (exact below 2^53; the range ends far below that) — BigInt only at
 * the interfaces that speak C (`__cuda_array_interface__`, DLPack), not on the allocator's paths.
 */

/** cudaMalloc's alignment guarantee (the CUDA Programming Guide: "at least 256 bytes"). */
export const ALLOCATION_ALIGNMENT = 256;

/** Where the simulated device's memory starts: far from 0 so that small integers are never valid pointers. */
export const DEFAULT_BASE = 0x7f00_0000_0000;
/** The virtual range's size: 1 TiB, more than any simulated device's memory limit. */
export const DEFAULT_SIZE = 2 ** 40;

export interface Allocation<T> {
  readonly address: number;
  /** The bytes asked for; the range reserved is this rounded up to ALLOCATION_ALIGNMENT (at least one unit). */
  readonly bytes: number;
  readonly payload: T;
}

/** What `find` resolved an address to. */
export interface Resolved<T> {
  readonly allocation: Allocation<T>;
  /** The address's offset from the allocation's start. */
  readonly offset: number;
}

/** The reserved size of an allocation of `bytes`: rounded up to the alignment, at least one unit (so every allocation has its own address). */
export function reservedBytes(bytes: number): number {
  return Math.max(ALLOCATION_ALIGNMENT, Math.ceil(bytes / ALLOCATION_ALIGNMENT) * ALLOCATION_ALIGNMENT);
}

export class AddressSpace<T> {
  /** Live allocations sorted by address (binary search resolves an address in O(log n)). */
  private readonly live: Allocation<T>[] = [];
  /** Free ranges [start, end), sorted, never adjacent (free merges them). */
  private readonly freeStarts: number[];
  private readonly freeEnds: number[];
  private reserved = 0;

  constructor(
    readonly base = DEFAULT_BASE,
    readonly size = DEFAULT_SIZE,
  ) {
    if (base % ALLOCATION_ALIGNMENT !== 0 || base <= 0 || !Number.isSafeInteger(base + size)) throw new RangeError(`AddressSpace: bad range ${base} + ${size}`);
    this.freeStarts = [base];
    this.freeEnds = [base + size];
  }

  /** Live allocations. */
  get count(): number {
    return this.live.length;
  }
  /** Bytes reserved by live allocations (each rounded up to the alignment). */
  get reservedBytes(): number {
    return this.reserved;
  }

  /** The lowest free, aligned address with room for `bytes`; undefined when the range is exhausted (or fragmented). */
  allocate(bytes: number, payload: T): Allocation<T> | undefined {
    return this.allocateWith(bytes, () => payload);
  }

  /** `allocate` with the payload made from the address (a buffer that knows its own address). */
  allocateWith(bytes: number, make: (address: number) => T): Allocation<T> | undefined {
    const need = reservedBytes(bytes);
    for (let i = 0; i < this.freeStarts.length; i++) {
      const start = this.freeStarts[i]!, end = this.freeEnds[i]!;
      if (end - start < need) continue;
      if (end - start === need) {
        this.freeStarts.splice(i, 1);
        this.freeEnds.splice(i, 1);
      } else this.freeStarts[i] = start + need;
      const a: Allocation<T> = { address: start, bytes, payload: make(start) };
      this.live.splice(this.liveIndexAfter(start), 0, a);
      this.reserved += need;
      return a;
    }
    return undefined;
  }

  /** Gives the allocation starting at `address` back; returns it, or undefined when no allocation starts there. */
  free(address: number): Allocation<T> | undefined {
    const i = this.liveIndexAfter(address) - 1;
    const a = this.live[i];
    if (!a || a.address !== address) return undefined;
    this.live.splice(i, 1);
    const start = a.address, end = start + reservedBytes(a.bytes);
    this.reserved -= end - start;
    // Insert [start, end) into the free list, merging with the ranges it touches.
    let j = 0;
    while (j < this.freeStarts.length && this.freeStarts[j]! < start) j++;
    const mergesLeft = j > 0 && this.freeEnds[j - 1] === start;
    const mergesRight = j < this.freeStarts.length && this.freeStarts[j] === end;
    if (mergesLeft && mergesRight) {
      this.freeEnds[j - 1] = this.freeEnds[j]!;
      this.freeStarts.splice(j, 1);
      this.freeEnds.splice(j, 1);
    } else if (mergesLeft) this.freeEnds[j - 1] = end;
    else if (mergesRight) this.freeStarts[j] = start;
    else {
      this.freeStarts.splice(j, 0, start);
      this.freeEnds.splice(j, 0, end);
    }
    return a;
  }

  /**
   * The live allocation holding [address, address + bytes) — every byte inside the bytes asked for,
   * not the alignment padding — and the offset of `address` in it; undefined when there is none.
   * A zero-byte range resolves when `address` is inside an allocation or at its end.
   */
  find(address: number, bytes = 1): Resolved<T> | undefined {
    const a = this.live[this.liveIndexAfter(address) - 1];
    if (!a) return undefined;
    const offset = address - a.address;
    if (bytes === 0 ? offset > a.bytes : offset + bytes > a.bytes) return undefined;
    return { allocation: a, offset };
  }

  /** Index of the first live allocation whose address is > `address`. */
  private liveIndexAfter(address: number): number {
    let lo = 0, hi = this.live.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.live[mid]!.address <= address) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
