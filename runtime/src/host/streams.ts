/** Streams and events (Numba's `cuda.stream()`, `cuda.event()`, `cuda.event_elapsed_time`). */
import type { EventHandle, StreamHandle } from "../backend";
import { CudaScriptError } from "../errors";
import { describeValue, streamHandle } from "./arrays";
import { currentBackend } from "./device";

export class Stream {
  /** @internal */
  readonly handle: StreamHandle;
  constructor() {
    this.handle = currentBackend().createStream();
  }
  /** Waits until everything queued on this stream is done. */
  synchronize(): void {
    currentBackend().synchronizeStream(this.handle);
  }
  /**
   * Numba's `with stream.auto_synchronize():` — runs `work`, then waits for this stream, and returns
   * what `work` returned. Without `work` it returns a disposable for TypeScript's `using`:
   * `{ using _ = stream.autoSynchronize(); … }` synchronises at the end of the block.
   */
  autoSynchronize(): StreamSynchronizer;
  autoSynchronize<R>(work: () => R): R;
  autoSynchronize<R>(work?: () => R): R | StreamSynchronizer {
    if (work === undefined) return { [disposeSymbol]: () => this.synchronize() } as StreamSynchronizer;
    if (typeof work !== "function")
      throw new CudaScriptError("CSR004", `stream.autoSynchronize takes a function (the work to run before synchronising), got ${describeValue(work)}`);
    const result = work();
    this.synchronize();
    return result;
  }
  toString(): string {
    return `Stream(${this.handle.id})`;
  }
}

// `Symbol.dispose` as @types/node declares it, so these declarations type-check under any `lib` (ES2022
// has no esnext.disposable); the same declaration merges with TypeScript's own where the lib has it.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/** What `stream.autoSynchronize()` returns for `using`: synchronises the stream when disposed. */
export interface StreamSynchronizer {
  [Symbol.dispose](): void;
}

/** `Symbol.dispose` (Node 20 has it from 20.4; TypeScript's `using` needs it at run time). */
const disposeSymbol: typeof Symbol.dispose = Symbol.dispose ?? Symbol.for("nodejs.dispose");

export class Event {
  /** @internal */
  readonly handle: EventHandle;
  constructor() {
    this.handle = currentBackend().createEvent();
  }
  /** Records the event on a stream (default stream when omitted). */
  record(stream?: Stream): void {
    currentBackend().recordEvent(this.handle, streamHandle(stream));
  }
  /** Waits until the event has happened. */
  synchronize(): void {
    currentBackend().synchronizeEvent(this.handle);
  }
  /** True once the work before the event's last record has completed (does not wait); CSR014 if never recorded. */
  query(): boolean {
    return currentBackend().queryEvent(this.handle);
  }
  /** Milliseconds from this event to `end`. */
  elapsedTime(end: Event): number {
    return eventElapsedTime(this, end);
  }
}

export function eventElapsedTime(start: Event, end: Event): number {
  if (!(start instanceof Event) || !(end instanceof Event))
    throw new CudaScriptError("CSR014", `cuda.eventElapsedTime takes two events made by cuda.event(), got ${describeValue(start)} and ${describeValue(end)}`);
  return currentBackend().elapsedTime(start.handle, end.handle);
}
