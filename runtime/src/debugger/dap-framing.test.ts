/**
 * The DAP frame guard on its own: frames pass whole whatever the chunking (down to one byte at a time),
 * and a refused header is skipped up to the next `Content-Length:` even when that one is split across
 * chunks. (dap-hostile.test.ts drives the real adapter process with the same input over stdio.)
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DapFrameGuard, MAX_FRAME_BYTES } from "./dap-framing";

function run(input: Buffer, chunk: number): Promise<{ frames: string[]; refused: string[] }> {
  const refused: string[] = [];
  const g = new DapFrameGuard((e) => refused.push(e.message));
  const out: Buffer[] = [];
  g.on("data", (d: Buffer) => out.push(d));
  for (let i = 0; i < input.length; i += chunk) g.write(input.subarray(i, i + chunk));
  return new Promise((resolve) =>
    g.end(() => {
      const text = Buffer.concat(out).toString("utf8");
      resolve({ frames: text.split(/Content-Length: \d+\r\n\r\n/).filter((s) => s !== ""), refused });
    }),
  );
}

const frame = (json: string) => `Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
const THREADS = JSON.stringify({ seq: 1, type: "request", command: "threads", arguments: { note: "é" } });

describe("DAP frame guard", () => {
  for (const chunk of [1, 7, 4096])
    it(`passes frames whole and skips refused ones, in chunks of ${chunk} bytes`, async () => {
      const input = Buffer.from(`Content-Length: ${MAX_FRAME_BYTES + 1}\r\n\r\n{"seq":9}${frame(THREADS)}Content-Length: x\r\n\r\n${frame(THREADS)}`);
      const r = await run(input, chunk);
      assert.deepEqual(r.frames, [THREADS, THREADS]);
      assert.equal(r.refused.length, 2);
      assert.match(r.refused[0]!, /^CSD029: refused a DAP message of 67108865 bytes \(Content-Length\): the limit is 64 MiB/);
      assert.match(r.refused[1]!, /^CSD029: refused a DAP message header without a byte count: 'Content-Length: x'/);
    });
});
