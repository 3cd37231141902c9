/**
 * The global race detector's rules, driven directly (the emitted code's fast paths only ever accept
 * what these slow paths accept: test/simulator/global-races.test.ts runs real kernels).
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RaceFault } from "../fault";
import { GlobalRaces } from "./global-races";
import type { SimSite } from "../fault";

const site = (line: number, kind = "read"): SimSite => ({ kind, fn: "k", file: "k.ts", line, col: 1 });
const SITES = [site(1), site(2, "write"), site(3, "atomic"), site(4), site(5, "write")];
const READ = 0, WRITE = 1, ATOMIC = 2, READ2 = 3, WRITE2 = 4;

/** A launch of `blocks` blocks of 64 threads over one 16-element global array. */
function launch(g = new GlobalRaces(), blocks = 4, cooperative = false) {
  const buf = new SharedArrayBuffer(64);
  const data = new Float32Array(buf);
  g.launch({}, SITES, "k", [blocks, 1, 1], [64, 1, 1], cooperative);
  const h = g.shadow(data, 4, "a");
  return { g, h, data };
}

function race(f: () => void): RaceFault {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof RaceFault, String(e));
    return e;
  }
  assert.fail("expected a race");
}

describe("global race detector", () => {
  it("within a block: a barrier orders two threads' accesses, nothing else does (CSR066)", () => {
    const { g, h } = launch();
    g.block(0);
    g.ws(h, 3, 0, WRITE, true);
    const f = race(() => g.rs(h, 3, 1, READ));
    assert.equal(f.code, "CSR066");
    assert.deepEqual(f.thread, [1, 0, 0]);
    assert.deepEqual(f.other.thread, [0, 0, 0]);
    assert.equal(f.other.line, 2);
    g.sync();
    g.rs(h, 3, 1, READ);
    g.rr(h, 3, 1, READ);
  });

  it("within a warp, a warp synchronisation orders; across warps it does not", () => {
    const { g, h } = launch();
    g.block(0);
    g.ws(h, 0, 0, WRITE, true);
    g.warpSync(0);
    g.rs(h, 0, 5, READ); // lane 5 of warp 0
    assert.equal(race(() => g.rs(h, 0, 40, READ)).code, "CSR066"); // warp 1
  });

  it("between blocks: nothing but a release/acquire orders (CSR067)", () => {
    const { g, h } = launch();
    g.block(0);
    g.ws(h, 2, 7, WRITE, true);
    g.block(1);
    const f = race(() => g.rs(h, 2, 0, READ));
    assert.equal(f.code, "CSR067");
    assert.deepEqual(f.block, [1, 0, 0]);
    assert.deepEqual(f.other.block, [0, 0, 0]);
    assert.deepEqual(f.other.thread, [7, 0, 0]);
  });

  it("threadfence + atomic releases the fencing thread's writes and its block's before the barrier; the acquiring atomic and a barrier pass them on", () => {
    const { g, h } = launch();
    g.block(0);
    g.ws(h, 1, 9, WRITE, true); // another thread, before the barrier
    g.sync();
    g.ws(h, 2, 0, WRITE, true); // the fencing thread's own
    g.ws(h, 3, 5, WRITE, true); // another thread after the barrier: not released
    g.fence(0);
    g.as(h, 15, 0, ATOMIC);
    g.sa(h, 15, 0);
    g.block(1);
    g.as(h, 15, 0, ATOMIC);
    g.sa(h, 15, 0);
    g.rs(h, 2, 0, READ); // the acquiring thread sees at once
    assert.equal(race(() => g.rs(h, 2, 1, READ)).code, "CSR067"); // its block only after a barrier
    g.sync();
    g.rs(h, 1, 1, READ);
    g.rs(h, 2, 1, READ);
    const f = race(() => g.rs(h, 3, 1, READ));
    assert.deepEqual(f.other.thread, [5, 0, 0]);
  });

  it("a fence releases the thread's accesses before it, not those after it", () => {
    const { g, h } = launch();
    g.block(0);
    g.ws(h, 2, 0, WRITE, true);
    g.fence(0);
    g.ws(h, 3, 0, WRITE, true);
    g.as(h, 15, 0, ATOMIC);
    g.sa(h, 15, 0);
    g.block(1);
    g.as(h, 15, 0, ATOMIC);
    g.sa(h, 15, 0);
    g.rs(h, 2, 0, READ);
    assert.equal(race(() => g.rs(h, 3, 0, READ)).code, "CSR067");
  });

  it("an atomic without a fence before it releases nothing; a fence without an atomic neither", () => {
    const { g, h } = launch();
    g.block(0);
    g.ws(h, 2, 0, WRITE, true);
    g.as(h, 15, 0, ATOMIC);
    g.sa(h, 15, 0);
    g.fence(0);
    g.block(1);
    g.as(h, 15, 0, ATOMIC);
    g.sa(h, 15, 0);
    assert.equal(race(() => g.rs(h, 2, 0, READ)).code, "CSR067");
  });

  it("atomics never race with atomics nor with reads; a plain write races with an atomic", () => {
    const { g, h } = launch();
    g.block(0);
    g.rr(h, 4, 3, READ);
    g.as(h, 4, 1, ATOMIC);
    g.block(1);
    g.as(h, 4, 2, ATOMIC);
    g.rs(h, 4, 6, READ);
    const f = race(() => g.ws(h, 4, 6, WRITE2, false));
    assert.equal(f.other.access, "updated it atomically");
  });

  it("a write after another block's read is a race even when a reader of the writer's block came between", () => {
    const { g, h } = launch();
    g.block(0);
    g.rr(h, 8, 3, READ);
    g.block(1);
    g.rr(h, 8, 0, READ2); // replaces block 0's reader, kept as the witness
    g.sync();
    const f = race(() => g.ws(h, 8, 0, WRITE, true));
    assert.deepEqual(f.other.block, [0, 0, 0]);
    assert.equal(f.other.line, 1);
  });

  it("writing the value already there after a plain write is not a race", () => {
    const { g, h } = launch();
    g.block(0);
    g.ws(h, 5, 0, WRITE, true);
    g.block(1);
    g.ws(h, 5, 0, WRITE, false);
    assert.equal(race(() => g.ws(h, 5, 1, WRITE, true)).code, "CSR066");
  });

  it("launches are ordered: nothing of an earlier launch races", () => {
    const { g, h } = launch();
    g.block(0);
    g.ws(h, 0, 0, WRITE, true);
    g.as(h, 1, 0, ATOMIC);
    const next = launch(g);
    next.g.block(3);
    next.g.rs(next.h, 0, 9, READ);
    next.g.ws(next.h, 1, 9, WRITE, true);
  });

  it("a module with more sites packs with a larger quantum, and what earlier launches recorded stays before the new launch", () => {
    const g = new GlobalRaces();
    const data = new Float32Array(new SharedArrayBuffer(64));
    g.launch({}, SITES, "k", [2, 1, 1], [64, 1, 1], false);
    let h = g.shadow(data, 4, "a");
    g.block(0);
    g.ws(h, 0, 3, WRITE, true);
    const many = Array.from({ length: 300 }, (_, i) => site(i + 1, "write"));
    g.launch({}, many, "k2", [2, 1, 1], [64, 1, 1], false);
    assert.equal(g.S, 512);
    h = g.shadow(data, 4, "a");
    g.block(1);
    g.rs(h, 0, 0, 299);
    g.ws(h, 0, 0, 299, true);
    g.block(0);
    const f = race(() => g.rs(h, 0, 1, 5));
    assert.equal(f.other.line, 300);
    assert.deepEqual(f.other.block, [1, 0, 0]);
  });

  it("a launch that runs out of exact epochs stops checking instead of reporting on wrapped numbers; the next launch checks again", () => {
    const { g, h } = launch();
    (g as unknown as { maxEpoch: number }).maxEpoch = (g as unknown as { ep: number }).ep + 3;
    g.block(0);
    g.ws(h, 0, 0, WRITE, true);
    for (let k = 0; k < 10; k++) g.sync();
    g.block(1);
    g.rs(h, 0, 0, READ); // unordered, but the epochs ran out: not reported
    (g as unknown as { maxEpoch: number }).maxEpoch = 1e6;
    const next = launch(g);
    next.g.block(0);
    next.g.ws(next.h, 1, 0, WRITE, true);
    next.g.block(1);
    assert.equal(race(() => next.g.rs(next.h, 1, 0, READ)).code, "CSR067");
  });

  it("a grid barrier starts a phase: what came before is ordered for every block", () => {
    const { g, h } = launch(new GlobalRaces(), 2, true);
    g.block(0);
    g.ws(h, 0, 0, WRITE, true);
    g.block(1);
    g.ws(h, 1, 0, WRITE, true);
    g.gridResume(0);
    g.rs(h, 1, 0, READ);
    g.ws(h, 2, 0, WRITE, true);
    g.gridResume(1);
    g.rs(h, 0, 0, READ);
    assert.equal(race(() => g.rs(h, 2, 0, READ)).code, "CSR067");
  });

  it("two views of one allocation are the same elements; the element is named in the view's coordinates", () => {
    const g = new GlobalRaces();
    const buf = new SharedArrayBuffer(64);
    g.launch({}, SITES, "k", [2, 1, 1], [32, 1, 1], false);
    const whole = g.shadow(new Float32Array(buf), 4, "a");
    const tail = g.shadow({ data: new Float32Array(buf, 16, 12), shape: [3, 4], strides: [4, 1] }, 4, "m");
    g.block(0);
    g.ws(whole, 9, 0, WRITE, true);
    g.block(1);
    const f = race(() => g.rs(tail, 5, 0, READ));
    assert.match(f.message, /'m\[1\]\[1\]'/);
    assert.equal(f.extra.index, 5);
  });

  it("a read-only parameter is checked only when it shares memory with a written one", () => {
    const g = new GlobalRaces();
    const buf = new SharedArrayBuffer(64), other = new SharedArrayBuffer(64);
    g.launch({}, SITES, "k", [2, 1, 1], [32, 1, 1], false);
    g.shadow(new Float32Array(buf), 4, "out", true);
    assert.equal(g.shadow(new Float32Array(buf), 4, "in", false).on, true);
    assert.equal(g.shadow(new Float32Array(other), 4, "in2", false).on, false);
  });
});
