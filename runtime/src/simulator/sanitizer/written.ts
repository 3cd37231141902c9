/**
 * Device memory nothing ever wrote, seen from the host (issue 32 item 3; docs/simulator.md, "Device
 * memory nothing wrote"): under the sanitizer, an array made by `cuda.deviceArray` / `deviceArrayLike`
 * / `toDevice(a, { copy: false })` gets a *written map* — one byte per element of its dtype, in a
 * SharedArrayBuffer so that every worker marks the same map. Host copies into it and memsets mark the
 * elements whose bytes they write (any of them); a kernel's store or atomic to a global array marks its
 * element (`W[flat] = 1` on a view from the argument's first element, emitted by
 * compiler/src/js/emit/memory.ts; device functions through `Sanitizer.wp/ap`). `copyToHost` looks for
 * an element no one marked and warns (CSR069) with the array's allocation site and the element's index:
 * the program reads back an element no kernel and no copy wrote, whose zero is only the allocation's
 * fill. A launch argument viewing the allocation as another dtype (an element of another size) stops the
 * tracking.
 *
 * Only under --sanitize (the plain run keeps no maps and pays nothing). A map is dropped — the array
 * counts as written — when the simulator cannot see its writes: a launch without the sanitizer, a
 * pointer handed out (DLPack, the CUDA Array Interface, IPC).
 */
import { displayPath } from "../../fault-text";

/** Where an array came from, for the warning: the API and the program's call site. */
export interface AllocationOrigin {
  readonly api: string;
  readonly site?: { readonly file?: string; readonly line?: number; readonly col?: number };
}

interface WrittenMap {
  /** One byte per element (`item` bytes each) of the allocation. */
  readonly elements: Uint8Array;
  readonly item: number;
  readonly origin: AllocationOrigin;
}

/** The written maps of one simulator's allocations (keyed by the address space's allocation objects). */
export class WrittenMemory {
  private readonly maps = new WeakMap<object, WrittenMap>();

  /** Starts tracking a fresh allocation of `size` bytes of elements of `item` bytes: nothing written yet. */
  track(allocation: object, size: number, item: number, origin: AllocationOrigin): void {
    this.maps.set(allocation, { elements: new Uint8Array(new SharedArrayBuffer(Math.max(1, Math.ceil(size / item)))), item, origin });
  }

  /** Stops tracking (the simulator can no longer see every write). */
  drop(allocation: object): void {
    this.maps.delete(allocation);
  }

  /**
   * The map's memory and the argument's first element in it, for a launch's argument at `byteOffset`
   * with elements of `item` bytes (the kernel marks it); undefined when untracked — and an argument
   * viewing the allocation with elements of another size stops the tracking.
   */
  argument(allocation: object, byteOffset: number, item: number): { buffer: SharedArrayBuffer; first: number } | undefined {
    const m = this.maps.get(allocation);
    if (!m) return undefined;
    if (m.item !== item || byteOffset % item !== 0) {
      this.maps.delete(allocation);
      return undefined;
    }
    return { buffer: m.elements.buffer as SharedArrayBuffer, first: byteOffset / item };
  }

  /** A host copy or memset wrote [offset, offset + bytes). */
  mark(allocation: object, offset: number, bytes: number): void {
    const m = this.maps.get(allocation);
    if (m && bytes > 0) m.elements.fill(1, Math.floor(offset / m.item), Math.ceil((offset + bytes) / m.item));
  }

  /**
   * The first element (in C order, as an index per dimension) of the array at `byteOffset` with these
   * extents and element strides whose first byte nothing marked, and how many such elements there are;
   * undefined when all were written or the allocation is untracked.
   */
  unwritten(allocation: object, byteOffset: number, itemBytes: number, shape: readonly number[], elementStrides: readonly number[]): { index: number[]; count: number; origin: AllocationOrigin } | undefined {
    const m = this.maps.get(allocation);
    if (!m) return undefined;
    if (m.item !== itemBytes || byteOffset % itemBytes !== 0) return undefined; // another dtype's view: not judged
    const size = shape.reduce((a, b) => a * b, 1);
    let first: number[] | undefined;
    let count = 0;
    const idx = shape.map(() => 0);
    for (let k = 0; k < size; k++) {
      let off = byteOffset / itemBytes;
      for (let d = 0; d < shape.length; d++) off += idx[d]! * elementStrides[d]!;
      if (m.elements[off] === 0) {
        count++;
        first ??= [...idx];
      }
      for (let d = shape.length - 1; d >= 0; d--) {
        if (++idx[d]! < shape[d]!) break;
        idx[d] = 0;
      }
    }
    return first ? { index: first, count, origin: m.origin } : undefined;
  }
}

/** The CSR069 warning's text (after "CSR069 warning: "). */
export function unwrittenCopyMessage(dtype: string, shape: readonly number[], found: { index: number[]; count: number; origin: AllocationOrigin }): string {
  const s = found.origin.site;
  const at = s?.file ? ` at ${displayPath(s.file)}${s.line ? `:${s.line}${s.col ? `:${s.col}` : ""}` : ""}` : "";
  const index = found.index.length === 1 ? String(found.index[0]) : `[${found.index.join(", ")}]`;
  const more = found.count > 1 ? ` (and ${found.count - 1} more element${found.count > 2 ? "s" : ""})` : "";
  return `copyToHost of the device array (${dtype}, shape [${shape.join(", ")}]) made by ${found.origin.api}${at}: element ${index}${more} was never written by a kernel or a copy; it holds only the zero the array was allocated with. If every element should have been computed, a kernel missed some (its grid or its bounds test)`;
}
