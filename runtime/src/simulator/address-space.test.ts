import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ALLOCATION_ALIGNMENT, AddressSpace, DEFAULT_BASE, reservedBytes } from "./address-space";

describe("simulator address space", () => {
  it("hands out 256-byte-aligned, non-overlapping addresses, lowest first", () => {
    const s = new AddressSpace<string>();
    const a = s.allocate(10, "a")!, b = s.allocate(256, "b")!, c = s.allocate(257, "c")!;
    assert.equal(a.address, DEFAULT_BASE);
    assert.equal(b.address, DEFAULT_BASE + 256);
    assert.equal(c.address, DEFAULT_BASE + 512);
    for (const x of [a, b, c]) assert.equal(x.address % ALLOCATION_ALIGNMENT, 0);
    assert.equal(s.allocate(1, "d")!.address, DEFAULT_BASE + 512 + 512);
    assert.equal(s.reservedBytes, 256 + 256 + 512 + 256);
  });

  it("gives a zero-byte allocation an address of its own", () => {
    const s = new AddressSpace<number>();
    const a = s.allocate(0, 1)!, b = s.allocate(0, 2)!;
    assert.notEqual(a.address, b.address);
    assert.equal(reservedBytes(0), 256);
  });

  it("free() returns memory: freed ranges are reused and neighbours merge", () => {
    const s = new AddressSpace<number>(DEFAULT_BASE, 4096);
    const xs = [0, 1, 2, 3].map((i) => s.allocate(1024, i)!);
    assert.equal(s.allocate(1, 9), undefined, "the range is full");
    assert.equal(s.free(xs[1]!.address)!.payload, 1);
    assert.equal(s.free(xs[2]!.address)!.payload, 2);
    // 1 and 2 merged: a 2048-byte allocation fits where they were.
    const big = s.allocate(2048, 7)!;
    assert.equal(big.address, xs[1]!.address);
    s.free(xs[0]!.address);
    s.free(big.address);
    s.free(xs[3]!.address);
    assert.equal(s.count, 0);
    assert.equal(s.reservedBytes, 0);
    assert.equal(s.allocate(4096, 8)!.address, DEFAULT_BASE, "everything merged back into one range");
  });

  it("release() takes the allocation itself, once", () => {
    const s = new AddressSpace<number>();
    const a = s.allocate(512, 1)!;
    assert.equal(s.release(a), true);
    assert.equal(s.release(a), false, "twice");
    assert.equal(a.live, false);
    assert.equal(s.count, 0);
    assert.equal(s.allocate(1, 2)!.address, a.address, "its range is free again");
  });

  it("free() of an address no allocation starts at does nothing", () => {
    const s = new AddressSpace<number>();
    const a = s.allocate(512, 1)!;
    assert.equal(s.free(a.address + 256), undefined, "not where an allocation starts");
    assert.equal(s.free(a.address)!.payload, 1);
    assert.equal(s.free(a.address), undefined, "twice");
  });

  it("find() resolves interior pointers to their allocation and offset, and nothing else", () => {
    const s = new AddressSpace<string>();
    const a = s.allocate(100, "a")!, b = s.allocate(1000, "b")!;
    assert.deepEqual(s.find(a.address), { allocation: a, offset: 0 });
    assert.deepEqual(s.find(a.address + 96, 4), { allocation: a, offset: 96 });
    assert.equal(s.find(a.address + 97, 4), undefined, "past the bytes asked for");
    assert.equal(s.find(a.address + 200), undefined, "in the alignment padding");
    assert.equal(s.find(a.address + 100, 0)!.allocation, a, "an empty range at the end");
    assert.deepEqual(s.find(b.address + 999), { allocation: b, offset: 999 });
    assert.equal(s.find(DEFAULT_BASE - 1), undefined);
    assert.equal(s.find(0), undefined);
    s.free(b.address);
    assert.equal(s.find(b.address + 5), undefined, "a freed allocation resolves no more");
  });

  it("stays consistent over many random allocations and frees", () => {
    const s = new AddressSpace<number>(DEFAULT_BASE, 1 << 22);
    let seed = 12345;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
    const live = new Map<number, number>();
    for (let step = 0; step < 3000; step++) {
      if (live.size > 0 && rnd(3) === 0) {
        const keys = [...live.keys()];
        const at = keys[rnd(keys.length)]!;
        assert.equal(s.free(at)!.bytes, live.get(at));
        live.delete(at);
      } else {
        const bytes = rnd(5000);
        const a = s.allocate(bytes, bytes);
        if (!a) continue;
        assert.equal(a.address % 256, 0);
        for (const [at, n] of live) assert.ok(a.address >= at + reservedBytes(n) || a.address + reservedBytes(bytes) <= at, "no overlap");
        live.set(a.address, bytes);
      }
    }
    for (const [at, n] of live) if (n > 0) assert.equal(s.find(at + n - 1)!.allocation.address, at);
    assert.equal(s.reservedBytes, [...live.values()].reduce((t, n) => t + reservedBytes(n), 0));
  });
});
