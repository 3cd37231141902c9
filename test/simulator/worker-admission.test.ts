/**
 * Workers join a pooled launch as they become ready: the calling thread starts on the blocks at once,
 * and a launch it finishes before a worker has started is closed to that worker, which then skips it
 * without a reply. Later launches, which the workers do join, must report exactly their own output and
 * faults (no reply of a skipped launch may be taken for a later one's).
 */
import * as assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { cuda, CudaScriptError, i32 } from "cudascript";
import { useBackend } from "cudascript/dist/host/device";
import { SimulatorBackend } from "cudascript/dist/simulator/backend";
import { compileSource, kernel } from "./helpers";

const art = compileSource(`
import { cuda, i32 } from "cudascript";

export const mark = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = i + 1;
});

export const say = cuda.jit((who: i32, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = i * 2;
  if (i === who) console.log("hello from", who);
});

export const overrun = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(1);
  out[i] = 1;
});
`);

describe("worker admission to pooled launches", () => {
  const prints: string[] = [];
  const sim = new SimulatorBackend("simulator", { workers: 2, inProcessThreshold: 0, mainThreadExecutes: true, deadline: Infinity, print: (s) => prints.push(s) });
  const previous = useBackend(sim);
  after(() => {
    useBackend(previous);
    sim.dispose();
  });

  it("a launch finished before the workers started is exact, and each later launch reports only its own output and faults", async () => {
    // The first pooled launch starts the workers; one block is done before any of them is ready.
    const small = cuda.deviceArray(32, i32);
    kernel(art, "mark").launch(1, 32)(small);
    assert.deepEqual(Array.from(small.copyToHost() as Int32Array), Array.from({ length: 32 }, (_, i) => i + 1));

    const n = 1 << 16;
    const out = cuda.deviceArray(n, i32);
    const deadline = Date.now() + 1500; // long enough for the workers to start and join
    let launches = 0;
    while (Date.now() < deadline || launches < 3) {
      const who = (launches * 7919) % n;
      prints.length = 0;
      kernel(art, "say").launch(n / 256, 256)(who, out);
      assert.deepEqual(prints.join("").trim().split("\n"), [`hello from ${who}`], `launch ${launches}: exactly its own line`);
      const got = out.copyToHost() as Int32Array;
      assert.equal(got[n - 1], (n - 1) * 2);
      assert.equal(got[who], who * 2);
      launches++;
      await new Promise((r) => setTimeout(r, 20));
    }
    for (let k = 0; k < 3; k++) {
      assert.throws(
        () => kernel(art, "overrun").launch(n / 256 + 1, 256)(out),
        (e: unknown) => e instanceof CudaScriptError && /out of bounds|outside/.test(e.message),
        "the out-of-bounds fault of this launch",
      );
      prints.length = 0;
      kernel(art, "say").launch(n / 256, 256)(5, out);
      assert.deepEqual(prints.join("").trim().split("\n"), ["hello from 5"], "a fault leaves no stale reply behind");
    }
  });
});
