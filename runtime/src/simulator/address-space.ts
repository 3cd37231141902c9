/**
 * The simulated device's one address space: every allocation gets a virtual 64-bit device address,
 * 256-byte aligned as `cudaMalloc`'s are, from a first-fit allocator over a fixed virtual range whose
 * `free()` gives the range back (neighbouring free ranges merge, so freed addresses are reused, as on
 * a GPU). `find()` resolves any address inside a live allocation to that allocation and the offset in
 * it, so a pointer handed out through the CUDA Array Interface, DLPack or an IPC handle means
 * something: a foreign view of (pointer, bytes) aliases the allocation's own memory.
 *
 * It holds only addresses and a payload per allocation (the simulator's: the allocation's memory
 * record); the bytes live elsewhere (one SharedArrayBuffer per allocation), so kernels index memory
 * exactly as before and the address space costs nothing per access. The sanitizer's aliasing and the profiler's sector counts
 * are meant to reuse it: one address space, built once.
 *
 * Addresses are JavaScript numbers (exact below 2^53; the range ends far below that) — BigInt only at
 * the interfaces that speak C (`__cuda_array_interface__`, DLPack), not on the allocator's paths.
 */

/** cudaMalloc's alignment guarantee (the CUDA Programming Guide: "at least 256 bytes"). */
export const ALLOCATION_ALIGNMENT = 256;

/** Where the simulated device's memory starts: far from 0 so that small integers are never valid pointers. */
export const DEFAULT_BASE = 0x7f00_0000_0000;
/**
 * The virtual range's size: 256 GiB (2^30 slots of 256 bytes, small integers for V8), more than a
 * simulated device's memory can hold on any machine it runs on; running out is CSR016 like memory.
 */
export const DEFAULT_SIZE = 2 ** 38;

/** One live (or released) allocation: its address, size and payload. */
export class Allocation<T> {
  /** @internal the list of live allocations (no map: allocate and release make no garbage). */
  prev: Allocation<T> | undefined;
  /** @internal */
  next: Allocation<T> | undefined;
  /** False once released. */
  live = true;
  constructor(
    readonly address: number,
    /** The bytes asked for; the range reserved is this rounded up to ALLOCATION_ALIGNMENT (at least one unit). */
    readonly bytes: number,
    /** The owner's record (mutable: the simulator's is the allocation's memory, undefined once freed). */
    public payload: T,
    /** @internal first 256-byte slot from the base */
    readonly slot: number,
  ) {}
}

/** What `find` resolved an address to. */
export interface Resolved<T> {
  readonly allocation: Allocation<T>;
  /** The address's offset from the allocation's start. */
  readonly offset: number;
}

/** The reserved size of an allocation of `bytes`: rounded up to the alignment, at least one unit (so every allocation has its own address). */
export function reservedBytes(bytes: number): number {
  return bytes <= ALLOCATION_ALIGNMENT ? ALLOCATION_ALIGNMENT : Math.ceil(bytes / ALLOCATION_ALIGNMENT) * ALLOCATION_ALIGNMENT;
}

export class AddressSpace<T> {
  // Internally the space counts in 256-byte slots from `base`: slot numbers stay small integers (V8
  // Smis) where addresses near 2^47 would be heap numbers.
  /** Live allocations, a doubly linked list through the allocations themselves. */
  private head: Allocation<T> | undefined;
  private liveCount = 0;
  /**
   * The live allocations sorted by address, for find(); rebuilt at the first find() after a change.
   * (Kept sorted on every allocate/release, it cost a splice each — tens of µs per free with thousands
   * of live arrays — on the simulator's hottest host path; finds are rare: one per foreign view.)
   */
  private sorted: Allocation<T>[] | undefined = [];
  /** Free ranges of slots [start, end), sorted, never adjacent (release merges them). */
  private readonly freeStarts: number[];
  private readonly freeEnds: number[];
  private reservedSlots = 0;

  constructor(
    readonly base = DEFAULT_BASE,
    readonly size = DEFAULT_SIZE,
  ) {
    if (base % ALLOCATION_ALIGNMENT !== 0 || base <= 0 || size % ALLOCATION_ALIGNMENT !== 0 || size / ALLOCATION_ALIGNMENT > 2 ** 30 || !Number.isSafeInteger(base + size))
      throw new RangeError(`AddressSpace: bad range ${base} + ${size}`);
    this.freeStarts = [0];
    this.freeEnds = [size / ALLOCATION_ALIGNMENT];
  }

  /** Live allocations. */
  get count(): number {
    return this.liveCount;
  }
  /** Bytes reserved by live allocations (each rounded up to the alignment). */
  get reservedBytes(): number {
    return this.reservedSlots * ALLOCATION_ALIGNMENT;
  }

  /** The lowest free, aligned address with room for `bytes`; undefined when the range is exhausted (or fragmented). */
  allocate(bytes: number, payload: T): Allocation<T> | undefined {
    const need = slotsOf(bytes);
    const starts = this.freeStarts, ends = this.freeEnds;
    for (let i = 0; i < starts.length; i++) {
      const start = starts[i]!, end = ends[i]!;
      if (end - start < need) continue;
      if (end - start === need) {
        starts.splice(i, 1);
        ends.splice(i, 1);
      } else starts[i] = start + need;
      const a = new Allocation<T>(this.base + start * ALLOCATION_ALIGNMENT, bytes, payload, start);
      a.next = this.head;
      if (this.head) this.head.prev = a;
      this.head = a;
      this.liveCount++;
      this.sorted = undefined;
      this.reservedSlots += need;
      return a;
    }
    return undefined;
  }

  /** Gives an allocation's range back (neighbouring free ranges merge); false when it was released already. */
  release(a: Allocation<T>): boolean {
    if (!a.live) return false;
    a.live = false;
    if (a.prev) a.prev.next = a.next;
    else this.head = a.next;
    if (a.next) a.next.prev = a.prev;
    a.prev = a.next = undefined;
    this.liveCount--;
    this.sorted = undefined;
    const start = a.slot, end = start + slotsOf(a.bytes);
    this.reservedSlots -= end - start;
    const starts = this.freeStarts, ends = this.freeEnds;
    const j = firstAtOrAbove(starts, start);
    const mergesLeft = j > 0 && ends[j - 1] === start;
    const mergesRight = j < starts.length && starts[j] === end;
    if (mergesLeft && mergesRight) {
      ends[j - 1] = ends[j]!;
      starts.splice(j, 1);
      ends.splice(j, 1);
    } else if (mergesLeft) ends[j - 1] = end;
    else if (mergesRight) starts[j] = start;
    else {
      starts.splice(j, 0, start);
      ends.splice(j, 0, end);
    }
    return true;
  }

  /** Releases the allocation starting at `address`; returns it, or undefined when no live allocation starts there. */
  free(address: number): Allocation<T> | undefined {
    const found = this.find(address, 0);
    if (!found || found.offset !== 0) return undefined;
    this.release(found.allocation);
    return found.allocation;
  }

  /**
   * The live allocation holding [address, address + bytes) — every byte inside the bytes asked for,
   * not the alignment padding — and the offset of `address` in it; undefined when there is none.
   * A zero-byte range resolves when `address` is inside an allocation or at its end.
   */
  find(address: number, bytes = 1): Resolved<T> | undefined {
    const sorted = (this.sorted ??= this.liveSorted());
    let lo = 0, hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]!.address <= address) lo = mid + 1;
      else hi = mid;
    }
    const a = sorted[lo - 1];
    if (!a) return undefined;
    const offset = address - a.address;
    if (bytes === 0 ? offset > a.bytes : offset + bytes > a.bytes) return undefined;
    return { allocation: a, offset };
  }

  private liveSorted(): Allocation<T>[] {
    const all: Allocation<T>[] = [];
    for (let a = this.head; a; a = a.next) all.push(a);
    return all.sort((x, y) => x.address - y.address);
  }
}

/** Slots (alignment units) an allocation of `bytes` reserves: at least one. */
function slotsOf(bytes: number): number {
  return bytes <= ALLOCATION_ALIGNMENT ? 1 : Math.ceil(bytes / ALLOCATION_ALIGNMENT);
}

/** Index of the first element of the sorted `xs` that is ≥ `value` (xs.length if none). */
function firstAtOrAbove(xs: readonly number[], value: number): number {
  let lo = 0, hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
