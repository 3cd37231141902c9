/**
 * The frames ranks exchange over their TCP connection to rank 0: a JSON header (what the message is)
 * and the bytes of an array, length-prefixed so that a stream of frames splits back exactly:
 *
 *   u32 header length | u32 payload length | header (UTF-8 JSON) | payload
 */
import type { Socket } from "node:net";

export type Message =
  /** A rank's first frame: who it is, so that rank 0 can check it belongs to this job. */
  | { kind: "hello"; rank: number; size: number; job: string }
  /** Rank 0 heard from every rank: collectives may start. */
  | { kind: "welcome" }
  /** A rank's part of collective number `seq` (the payload is its array's bytes). */
  | { kind: "contribute"; seq: number; call: CollectiveCall }
  /** Rank 0's answer to collective `seq`: this rank's result bytes. */
  | { kind: "result"; seq: number }
  /** Point to point: from a rank to rank 0, which forwards it to `to` (with `from` set). */
  | { kind: "p2p"; from: number; to: number; dtype: string; count: number }
  /** The job is over: every pending and later call fails with this error. */
  | { kind: "abort"; code: string; message: string };

/** What a rank asked for at one collective step; every rank must ask the same (CSR072 otherwise). */
export interface CollectiveCall {
  readonly op: "allReduce" | "broadcast" | "allGather" | "reduceScatter" | "barrier";
  readonly dtype?: string;
  /** Elements this rank sends. */
  readonly count?: number;
  /** Elements this rank receives (allGather: size × count; reduceScatter: count / size). */
  readonly resultCount?: number;
  readonly reduce?: string;
  readonly root?: number;
}

export interface Frame {
  readonly message: Message;
  readonly payload: Uint8Array;
}

const EMPTY = new Uint8Array(0);

export function writeFrame(socket: Socket, message: Message, payload: Uint8Array = EMPTY): void {
  const header = Buffer.from(JSON.stringify(message), "utf8");
  const prefix = Buffer.alloc(8);
  prefix.writeUInt32LE(header.length, 0);
  prefix.writeUInt32LE(payload.byteLength, 4);
  socket.write(prefix);
  socket.write(header);
  if (payload.byteLength > 0) socket.write(payload);
}

/** Splits a byte stream into frames, whatever the chunks it arrives in. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly onFrame: (frame: Frame) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.buffered < 8) return;
      const head = this.peek(8);
      const headerLength = head.readUInt32LE(0);
      const payloadLength = head.readUInt32LE(4);
      const total = 8 + headerLength + payloadLength;
      if (this.buffered < total) return;
      const all = this.take(total);
      const message = JSON.parse(all.subarray(8, 8 + headerLength).toString("utf8")) as Message;
      // A copy of its own: the payload outlives the chunks it came in.
      const payload = new Uint8Array(payloadLength);
      payload.set(all.subarray(8 + headerLength));
      this.onFrame({ message, payload });
    }
  }

  /** The first n bytes (n ≤ buffered), copied from as many chunks as hold them: never a merge of all the chunks, which made a large frame quadratic. */
  private peek(n: number): Buffer {
    const first = this.chunks[0]!;
    if (first.length >= n) return first.subarray(0, n);
    const out = Buffer.alloc(n);
    let at = 0;
    for (const chunk of this.chunks) {
      at += chunk.copy(out, at, 0, Math.min(chunk.length, n - at));
      if (at === n) break;
    }
    return out;
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.buffered -= n;
    return all.subarray(0, n);
  }
}
