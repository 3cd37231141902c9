/**
 * A guard in front of @vscode/debugadapter's framing (`Content-Length: n\r\n\r\n` + n bytes of JSON).
 * The library believes every header: `Content-Length: 99999999999` makes it wait for 100 GB and buffer
 * every later request behind it, so the adapter never answers again. The guard passes on well-formed
 * frames up to MAX_FRAME_BYTES unchanged and refuses the others — a Content-Length over the limit or
 * not a number, a header without one, a header longer than MAX_HEADER_BYTES — saying why (`refused`),
 * then resynchronises at the next `Content-Length:` so that later requests are served.
 */
import { Transform, type TransformCallback } from "node:stream";
import { CudaScriptError } from "../errors";
import { formatBytes } from "../sizes";

/** The largest DAP message accepted (a launch configuration with its `data` arrays fits many times over). */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;
/** The largest header accepted (a real one is `Content-Length: n` and perhaps a Content-Type line). */
export const MAX_HEADER_BYTES = 8 * 1024;

const HEADER_END = Buffer.from("\r\n\r\n");
const LENGTH_FIELD = Buffer.from("Content-Length:");

export class DapFrameGuard extends Transform {
  private buffer: Buffer = Buffer.alloc(0);
  /** The body length of the frame whose header was read; -1 while reading a header. */
  private bodyLength = -1;
  /** After a refusal with no next header in sight: bytes are dropped until a `Content-Length:` comes. */
  private skipping = false;

  constructor(private readonly refused: (error: CudaScriptError) => void) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      if (this.skipping) {
        const next = this.buffer.indexOf(LENGTH_FIELD);
        this.skipping = next < 0;
        this.buffer = next >= 0 ? this.buffer.subarray(next) : this.tail();
        if (this.skipping) break;
      }
      if (this.bodyLength >= 0) {
        if (this.buffer.length < this.bodyLength) break;
        this.push(Buffer.from(`Content-Length: ${this.bodyLength}\r\n\r\n`));
        this.push(this.buffer.subarray(0, this.bodyLength));
        this.buffer = this.buffer.subarray(this.bodyLength);
        this.bodyLength = -1;
        continue;
      }
      const end = this.buffer.indexOf(HEADER_END);
      if (end < 0 || end > MAX_HEADER_BYTES) {
        if (end < 0 && this.buffer.length <= MAX_HEADER_BYTES) break; // the rest of the header is on its way
        this.refuse(`a DAP message header longer than ${formatBytes(MAX_HEADER_BYTES)} (no '\\r\\n\\r\\n' after '${preview(this.buffer)}')`);
        continue;
      }
      const header = this.buffer.subarray(0, end).toString("latin1");
      const field = /(?:^|\r\n)Content-Length: *([^\r\n]*)/i.exec(header);
      const length = field && /^\d+$/.test(field[1]!.trim()) ? Number(field[1]!.trim()) : undefined;
      if (length === undefined) {
        this.refuse(`a DAP message header without a byte count: '${preview(this.buffer.subarray(0, end))}'; a header is 'Content-Length: <bytes of the JSON body>' and a blank line`);
        continue;
      }
      if (length > MAX_FRAME_BYTES) {
        this.refuse(`refused a DAP message of ${length} bytes (Content-Length): the limit is ${formatBytes(MAX_FRAME_BYTES)}; send smaller messages (a launch's large arrays as "zeros" or "range", or from a host program)`, true);
        continue;
      }
      this.bodyLength = length;
      this.buffer = this.buffer.subarray(end + HEADER_END.length);
    }
    done();
  }

  /** Says why, drops the refused header and whatever follows it up to the next `Content-Length:` (its body, if it came). */
  private refuse(why: string, messageSaysRefused = false): void {
    this.refused(new CudaScriptError("CSD029", `${messageSaysRefused ? "" : "refused "}${why}; the adapter skips to the next message`));
    const next = this.buffer.indexOf(LENGTH_FIELD, 1);
    this.skipping = next < 0;
    this.buffer = next >= 0 ? this.buffer.subarray(next) : this.tail();
  }

  /** What may be the start of a `Content-Length:` split across chunks. */
  private tail(): Buffer {
    return Buffer.from(this.buffer.subarray(Math.max(0, this.buffer.length - LENGTH_FIELD.length + 1)));
  }
}

/** The start of a refused header, printable and short. */
function preview(b: Buffer): string {
  const text = b.subarray(0, 40).toString("latin1").replace(/[^\x20-\x7e]/g, "?");
  return b.length > 40 ? `${text}…` : text;
}
