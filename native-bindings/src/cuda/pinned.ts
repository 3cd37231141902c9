// Page-locked host memory (cuMemHostAlloc) seen from JavaScript as ArrayBuffers, and the rule that
// keeps those views safe: the memory is returned to the driver only once no view of it can be
// reached. External ArrayBuffers cannot be detached (koffi's views ignore `transfer`, and Node 20
// has no ArrayBuffer.prototype.transfer), so a view made before a free would otherwise read or
// write freed memory. Instead, every view this module hands out is tracked by a
// FinalizationRegistry; a free requested while one may still be alive (free(), the context's last
// release) is deferred until the last of them has been garbage-collected.
import { koffi } from "../koffi";
import { CudaUsageError } from "./errors";

/** What a PinnedBuffer needs from its context (CudaContext implements it). */
export interface PinnedOwner {
  /** Synchronizes (so no DMA still uses the memory), then cuMemFreeHost. */
  freePinnedMemory(buffer: PinnedBuffer, quiet: boolean): void;
}

// Held value: the buffer whose view was collected. The registry holds the buffer strongly, which
// is what keeps the memory (and, through the context, its primary context) alive for the views.
const collectedViews = new FinalizationRegistry<PinnedBuffer>((buffer) => buffer.viewCollected());

/** Page-locked host memory from CudaContext.allocPinned. */
export class PinnedBuffer {
  // Held weakly: holding the view would keep it alive forever; a view nobody holds must be
  // collectable so its memory can go.
  private view: WeakRef<ArrayBuffer> | undefined;
  private liveViews = 0;
  private freeRequested = false;
  private memoryFreed = false;

  /** @internal */
  constructor(
    private readonly owner: PinnedOwner,
    /** The host address (what the driver sees). */
    readonly pointer: bigint,
    readonly byteLength: number,
    /** The cuMemHostAlloc flags (CU_MEMHOSTALLOC_*). */
    readonly flags: number,
    /** "host": cuMemHostAlloc (freed with cuMemFreeHost); "managed": cuMemAllocManaged (cuMemFree). */
    readonly kind: "host" | "managed" = "host",
  ) {}

  /**
   * The memory as an ArrayBuffer (no copy; the same object while it is reachable). Throws after
   * free(). The memory stays allocated while this ArrayBuffer (or any typed array over it) is
   * reachable, even after free() or the context's release.
   */
  get buffer(): ArrayBuffer {
    if (this.freeRequested) throw new CudaUsageError("CSD005", "this pinned buffer was freed");
    let view = this.view?.deref();
    if (!view) {
      view = koffi.view(this.pointer, this.byteLength);
      this.view = new WeakRef(view);
      this.liveViews++;
      collectedViews.register(view, this);
    }
    return view;
  }

  /** True once free() (or the context's release) was called: the buffer can no longer be used. */
  get freed(): boolean {
    return this.freeRequested;
  }

  /** True once the memory itself went back to the driver (no view of it was left). */
  get memoryReleased(): boolean {
    return this.memoryFreed;
  }

  /** Views handed out by `buffer` that have not been garbage-collected yet. */
  get viewsAlive(): number {
    return this.liveViews;
  }

  /**
   * Synchronizes the context (no copy may still use the memory), then cuMemFreeHost — at once if
   * no view of `buffer` may still be reachable, else when the last one has been garbage-collected.
   * A second free is a CudaUsageError (CSD004).
   */
  free(): void {
    if (this.freeRequested) throw new CudaUsageError("CSD004", `pinned buffer 0x${this.pointer.toString(16)} was already freed (double free)`);
    this.freeRequested = true;
    if (this.liveViews === 0) this.releaseMemory(false);
  }

  /**
   * Hands the memory over to the views of `buffer`: it is freed (after synchronizing) when the
   * last of them has been garbage-collected, with no synchronization now. For owners such as
   * `cuda.pinnedArray` whose only handle on the memory is the view itself.
   */
  freeWhenUnreachable(): void {
    if (this.freeRequested) return;
    this.freeRequested = true;
    if (this.liveViews === 0) this.releaseMemory(true);
  }

  /** @internal The context's release: free now what nobody can reach, defer the rest. Returns true if deferred. */
  freeQuietly(): boolean {
    this.freeRequested = true;
    if (this.memoryFreed) return false;
    if (this.liveViews > 0) return true;
    this.releaseMemory(true);
    return false;
  }

  /** @internal A view of `buffer` was garbage-collected. */
  viewCollected(): void {
    this.liveViews--;
    if (this.liveViews === 0 && this.freeRequested && !this.memoryFreed) this.releaseMemory(true);
  }

  /** @internal The memory went with its context (a reset double); nothing is left to free. */
  forget(): void {
    this.freeRequested = true;
    this.memoryFreed = true;
  }

  private releaseMemory(quiet: boolean): void {
    this.memoryFreed = true;
    this.owner.freePinnedMemory(this, quiet);
  }
}

/**
 * Maps `bytes` at `pointer` once, to check that this runtime can view external memory (Electron's
 * renderer cannot) and to zero it. The view is dropped at once: nothing can reach it afterwards.
 */
export function zeroPinnedMemory(pointer: bigint, bytes: number): void {
  new Uint8Array(koffi.view(pointer, bytes)).fill(0);
}
