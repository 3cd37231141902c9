/**
 * Every seeded bug of test/corpus/buggy replayed to its fault (runtime/src/debugger/replay-launch.ts):
 * the launch is run as `--sanitize` runs it (the sanitizer where the bug needs it; uninitialised shared
 * reads as errors), then debugged from its original memory, and the replay must stop at the faulting
 * thread on the line the case marks `// @bug <kind>`, reason exception, with the fault's code. Generic
 * over the corpus: a case added for a new finding is replayed here with nothing else to change.
 * Not replayed: the runaway loop (a loop that never ends is not counted; the debugger pauses in it) and
 * cooperative kernels (g.sync(): the stepping backend runs one block at a time).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { KernelChecker } from "@cudascript/compiler";
import { replayLaunch } from "cudascript/dist/debugger/replay-launch";
import type { StopEvent } from "cudascript/dist/debugger/session";
import type { ArgDesc } from "cudascript/dist/simulator/executor";
import type { BugCase } from "../corpus/buggy/case";
import { REPO } from "../simulator/helpers";

const BUGGY = path.join(REPO, "test", "corpus", "buggy");
const files = fs.readdirSync(BUGGY).filter((f) => f.endsWith(".ts") && f !== "case.ts").sort();
const checker = new KernelChecker();
/** Cooperative kernels (g.sync()): not replayed, as the debugger does not run them (step-corpus.test.ts skips them too). */
const COOPERATIVE = /\.sync\(\)/;

function marked(file: string): { kind: string; line: number } {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const i = lines.findIndex((l) => l.includes("// @bug "));
  return { kind: /@bug ([\w-]+)/.exec(lines[i]!)![1]!, line: i + 1 };
}
/** The dtype of each typed array a case may pass (host arrays, as the executor takes them). */
const DTYPES: [new (...a: never[]) => ArrayBufferView, string][] = [
  [Float32Array, "f32"],
  [Float64Array, "f64"],
  [Int8Array, "i8"],
  [Uint8Array, "u8"],
  [Int16Array, "i16"],
  [Uint16Array, "u16"],
  [Int32Array, "i32"],
  [Uint32Array, "u32"],
  [BigInt64Array, "i64"],
  [BigUint64Array, "u64"],
];
function argDesc(v: unknown): ArgDesc {
  if (!ArrayBuffer.isView(v)) return { kind: "scalar", value: v as number };
  const dtype = DTYPES.find(([C]) => v instanceof C)?.[1];
  assert.ok(dtype, `a case argument of an unknown kind: ${Object.prototype.toString.call(v)}`);
  const a = v as Float32Array;
  return { kind: "array", buffer: a.buffer, byteOffset: a.byteOffset, length: a.length, dtype, shape: [a.length], strides: [1] } as ArgDesc;
}
const dim3 = (d: number | readonly number[]): [number, number, number] => {
  const a = typeof d === "number" ? [d] : [...d];
  return [a[0] ?? 1, a[1] ?? 1, a[2] ?? 1];
};

describe("replay to a fault: every seeded bug of the corpus", { timeout: 120_000 }, () => {
  for (const f of files) {
    const file = path.join(BUGGY, f);
    const { kind, line } = marked(file);
    const skip = kind === "timeout" ? "a runaway loop is not counted: the debugger pauses in it" : COOPERATIVE.test(fs.readFileSync(file, "utf8")) ? "a cooperative kernel (g.sync()): the stepping backend runs one block at a time (CSD012)" : false;
    it(`${f}: stops at the faulting thread on line ${line} (${kind})`, { skip }, () => {
      const { bug } = require(path.join(REPO, "test", "dist", "corpus", "buggy", f.replace(/\.ts$/, ".js"))) as { bug: BugCase };
      const check = checker.checkFile(file);
      const r = replayLaunch(
        { module: check.module, kernel: bug.kernel, grid: dim3(bug.grid), block: dim3(bug.block), ...(bug.sharedMem !== undefined ? { sharedMem: bug.sharedMem } : {}), args: bug.args().map(argDesc), sanitize: bug.needsSanitizer, uninitializedShared: "error" },
        { print: () => {} },
      );
      assert.ok(r.fault, "the launch faults");
      assert.equal(r.fault.details?.line, line, r.fault.message);
      assert.equal(r.problem, undefined, r.problem?.message);
      const e = r.session!.continue() as StopEvent;
      assert.equal(e.kind, "stop", JSON.stringify(e));
      assert.equal(e.reason, "exception");
      assert.equal(e.error?.code, r.fault.code);
      assert.deepEqual([e.line, e.block, e.thread], [line, r.fault.details!.block, r.fault.details!.thread]);
      assert.ok(e.frames.length > 0, "the thread's frames (its locals) are shown");
      const end = r.session!.continue();
      assert.equal(end.kind, "end");
      assert.equal(end.error?.code, r.fault.code);
    });
  }
});
