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
  toString(): string {
    return `Stream(${this.handle.id})`;
  }
}

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
