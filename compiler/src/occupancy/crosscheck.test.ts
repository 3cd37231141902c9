/**
 * Cross-checks this calculator against NVIDIA's `cuda_occupancy.h` itself, compiled on the host
 * with g++ (see `test/support/header-oracle.ts`), over a grid of block sizes, register counts and shared memory
 * sizes for every arch in the table. Skipped (with the reason) when g++ or the header is missing.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { ARCHS, type ArchSpec } from "./archs";
import { calculate, type LimitingFactor, type OccupancyInput } from "./calculate";
import { buildHeaderOracle, type HeaderOracle } from "../../../test/dist/support/header-oracle";
import { maxPotentialBlockSize } from "./occupancy";

const KiB = 1024;
const INT_MAX = 2147483647;
const FACTOR_BITS: Record<LimitingFactor, number> = { warps: 0x01, registers: 0x02, sharedMemory: 0x04, blocks: 0x08 };

const THREADS = [
  ...Array.from({ length: 32 }, (_, i) => (i + 1) * 32),
  1, 17, 33, 48, 100, 250, 500, 999, 1000, 1023, 1025, 2048,
];
/** `undefined` = unknown (header: numRegs 0, i.e. no register limit). */
const REGS: (number | undefined)[] = [undefined, 0, 1, 16, 20, 24, 32, 33, 40, 48, 56, 63, 64, 65, 72, 80, 96, 128, 168, 200, 255];

function sharedCases(arch: ArchSpec): [number, number][] {
  const optin = arch.maxSharedMemoryPerBlockOptin;
  const cases: [number, number][] = [
    [0, 0], [0, 1], [1, 0], [1000, 0], [2 * KiB, 0], [0, 4 * KiB], [4000, 4000], [8 * KiB, 0], [12345, 0],
    [16 * KiB, 0], [0, 24 * KiB], [0, 24 * KiB + 1], [32 * KiB, 0], [20000, 20000], [40000, 0], [48 * KiB, 0],
    [48 * KiB, 1], [0, 64 * KiB], [0, 99 * KiB], [0, 100 * KiB], [48 * KiB, 51 * KiB], [0, 163 * KiB],
    [0, 164 * KiB], [0, 227 * KiB], [0, 228 * KiB], [0, optin - KiB + 1], [0, optin - 1], [0, optin],
    [0, optin + 1], [1, optin - 1], [1, optin],
  ];
  return cases;
}

const toInt = (n: number | undefined): number => (n === undefined || n === Infinity ? INT_MAX : n);
const archArgs = (a: ArchSpec): string =>
  `${a.computeMajor} ${a.computeMinor} ${a.maxThreadsPerSM} ${a.sharedMemoryPerSM} ${a.maxSharedMemoryPerBlockOptin} ${a.reservedSharedMemoryPerBlock} ${a.registersPerSM} ${a.maxRegistersPerBlock}`;

describe("cross-check with cuda_occupancy.h", () => {
  let oracle: HeaderOracle | undefined;
  let unavailable: string | undefined;

  before(() => {
    const built = buildHeaderOracle();
    if (typeof built === "string") unavailable = built;
    else oracle = built;
  });
  after(() => oracle?.dispose());

  test("arch table matches the header's per-arch functions", (t) => {
    if (!oracle) return t.skip(`skipped: ${unavailable}`);
    const answers = oracle.query(ARCHS.map((a) => `H ${a.computeMajor} ${a.computeMinor}`));
    ARCHS.forEach((a, i) => {
      const [gran, regUnit, regMax, sub, blocks] = answers[i]!.split(" ").map(Number);
      assert.equal(a.sharedMemoryAllocationGranularity, gran, `${a.name} shared granularity`);
      assert.equal(a.registerAllocationUnitSize, regUnit, `${a.name} register unit`);
      // The header allows 256 registers per thread from 7.x on; the ISA / ptxas limit is 255.
      assert.equal(a.maxRegistersPerThread, Math.min(regMax!, 255), `${a.name} max registers`);
      assert.equal(a.subPartitionsPerSM, sub, `${a.name} sub-partitions`);
      assert.equal(a.maxBlocksPerSM, blocks, `${a.name} max blocks per SM`);
    });
  });

  test("carveout configurations match cudaOccAlignUpShmemSizeVoltaPlus", (t) => {
    if (!oracle) return t.skip(`skipped: ${unavailable}`);
    for (const a of ARCHS.filter((x) => x.computeMajor < 7)) {
      // Before Volta shared memory is one fixed partition (the header has no carveouts there).
      assert.deepEqual(a.sharedMemoryCarveouts, [a.sharedMemoryPerSM], `${a.name} one fixed partition`);
      assert.equal(oracle.query([`C ${a.computeMajor} ${a.computeMinor} 1024`])[0]!.split(" ")[0] !== "0", true, `${a.name}: no Volta+ carveout in the header`);
    }
    for (const a of ARCHS.filter((x) => x.computeMajor >= 7)) {
      // Every size from 0 to 240 KiB in 512-byte steps, plus each carveout and one byte past it.
      const sizes = new Set<number>();
      for (let b = 0; b <= 240 * KiB; b += 512) sizes.add(b);
      for (const c of a.sharedMemoryCarveouts) sizes.add(c).add(c + 1);
      const list = [...sizes];
      const answers = oracle.query(list.map((b) => `C ${a.computeMajor} ${a.computeMinor} ${b}`));
      const headerConfigs = new Set<number>();
      list.forEach((b, i) => {
        const [err, aligned] = answers[i]!.split(" ").map(Number);
        const mine = (() => {
          for (const c of a.sharedMemoryCarveouts) if (b <= c) return c;
          return undefined;
        })();
        if (err === 0) headerConfigs.add(aligned!);
        assert.equal(mine ?? -1, err === 0 ? aligned : -1, `${a.name} carveout for ${b} bytes`);
      });
      assert.deepEqual([...headerConfigs].sort((x, y) => x - y), [...a.sharedMemoryCarveouts], `${a.name} carveouts`);
      assert.equal(a.sharedMemoryCarveouts.at(-1), a.sharedMemoryPerSM, `${a.name} largest carveout = shared per SM`);
    }
  });

  test("cudaOccMaxActiveBlocksPerMultiprocessor agrees on the whole grid", (t) => {
    if (!oracle) return t.skip(`skipped: ${unavailable}`);
    let compared = 0;
    const mismatches: string[] = [];
    for (const a of ARCHS) {
      const inputs: OccupancyInput[] = [];
      for (const threadsPerBlock of THREADS)
        for (const registersPerThread of REGS)
          for (const [staticSharedBytes, dynamicSharedBytes] of sharedCases(a)) {
            if (staticSharedBytes > a.maxSharedMemoryPerBlock) continue; // impossible to compile
            inputs.push({ arch: a.name, threadsPerBlock, registersPerThread, staticSharedBytes, dynamicSharedBytes });
          }
      const answers = oracle.query(
        inputs.map(
          (i) => `A ${archArgs(a)} ${i.threadsPerBlock} ${i.registersPerThread ?? 0} ${i.staticSharedBytes} ${i.dynamicSharedBytes}`,
        ),
      );
      inputs.forEach((input, k) => {
        const [err, active, warps, regs, smem, blocks, factors] = answers[k]!.split(" ").map(Number);
        const r = calculate(a, input);
        const mineBits = r.limitedBy.reduce((bits, f) => bits | FACTOR_BITS[f], 0);
        const mine = [0, r.activeBlocksPerSM, r.limits.warps, toInt(r.limits.registers), toInt(r.limits.sharedMemory), r.limits.blocks, mineBits];
        // Barrier (0x10) and virtual-resource (0x20) bits are not modelled: one barrier never limits below maxBlocksPerSM.
        const theirs = [err, active, warps, input.registersPerThread === undefined ? INT_MAX : regs, smem, blocks, factors! & 0x0f];
        compared++;
        if (mine.join(" ") !== theirs.join(" ") && mismatches.length < 20) {
          mismatches.push(`${JSON.stringify(input)}: mine ${mine.join(" ")} header ${theirs.join(" ")}`);
        }
        if (r.activeBlocksPerSM === 0) assert.ok(r.reason, `a zero result explains itself: ${JSON.stringify(input)}`);
      });
    }
    assert.deepEqual(mismatches, []);
    t.diagnostic(`${compared} configurations compared`);
    assert.ok(compared > 50_000);
  });

  test("cudaOccMaxPotentialOccupancyBlockSize agrees", (t) => {
    if (!oracle) return t.skip(`skipped: ${unavailable}`);
    let compared = 0;
    for (const a of ARCHS) {
      const cases: [number, number][] = [];
      for (const regs of [0, 16, 24, 32, 40, 48, 64, 72, 96, 128, 168, 255])
        for (const dyn of [0, 1, 3000, 8 * KiB, 20 * KiB, 40 * KiB, 64 * KiB, 90 * KiB, a.maxSharedMemoryPerBlockOptin])
          cases.push([regs, dyn]);
      const answers = oracle.query(cases.map(([regs, dyn]) => `P ${archArgs(a)} ${regs} ${dyn}`));
      cases.forEach(([regs, dyn], k) => {
        const [err, blockSize, minGrid] = answers[k]!.split(" ").map(Number);
        assert.equal(err, 0);
        const mine = maxPotentialBlockSize({ arch: a.name, registersPerThread: regs, staticSharedBytes: 0, dynamicSharedBytes: dyn });
        assert.deepEqual([mine.threadsPerBlock, mine.activeBlocksPerSM], [blockSize, minGrid], `${a.name} regs ${regs} dyn ${dyn}`);
        compared++;
      });
    }
    t.diagnostic(`${compared} configurations compared`);
  });
});
