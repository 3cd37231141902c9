/**
 * Hand-worked occupancy cases. Each derivation follows `cuda_occupancy.h` step by step:
 *   W  = ceil(threads / 32)                                     warps per block
 *   warps limit  = floor(maxWarpsPerSM / W)                     (cudaOccMaxBlocksPerSMWarpsLimit)
 *   Rw = roundUp(R · 32, 256)                                   registers per warp
 *   registers limit = floor(4 · floor((65536 / 4) / Rw) / W),   (cudaOccMaxBlocksPerSMRegsLimit)
 *                     0 if Rw · roundUp(W, 4) > 65536 (hardware check)
 *   S  = roundUp(static + reserved + dynamic, granularity)      shared per block
 *   shared limit = floor(sharedMemoryPerSM / S), ∞ if S = 0     (cudaOccMaxBlocksPerSMSmemLimit)
 *   blocks limit = maxBlocksPerSM                               (cudaOccMaxBlocksPerMultiprocessor)
 * Arch constants used below: sm_75 32 warps / 16 blocks / 64 KiB / 0 reserved / 256 B granularity;
 * sm_80 64 warps / 32 blocks / 164 KiB (167936) / 1 KiB reserved / 128 B;
 * sm_86 48 warps / 16 blocks / 100 KiB (102400); sm_89 48 warps / 24 blocks; sm_90 64 warps / 32 blocks / 228 KiB.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loadNvrtc } from "@cudascript/native-bindings";

import { alignUpToCarveout, ARCHS, KNOWN_ARCH_NAMES, parseArch, UnknownArchError } from "./archs";
import { computeOccupancy, launchBoundsRegisterCap, maxPotentialBlockSize, occupancyForBlockSizes, type OccupancyInput } from "./occupancy";

const KiB = 1024;

function occ(arch: string, threadsPerBlock: number, registersPerThread: number | undefined, staticSharedBytes = 0, dynamicSharedBytes = 0) {
  const input: OccupancyInput = { arch, threadsPerBlock, registersPerThread, staticSharedBytes, dynamicSharedBytes };
  return computeOccupancy(input);
}

describe("hand-worked cases", () => {
  test("1. sm_80, 256 threads, 32 registers, no shared memory → 8 blocks, 100%", () => {
    // W = 8; warps limit = floor(64/8) = 8.
    // Rw = roundUp(32·32 = 1024, 256) = 1024; hardware check 1024·8 = 8192 ≤ 65536;
    //   per sub-partition floor(16384/1024) = 16 warps → 64 warps/SM → floor(64/8) = 8 blocks.
    // S = roundUp(0 + 1024 + 0, 128) = 1024 → floor(167936/1024) = 164. Blocks limit 32.
    // min(8, 8, 164, 32) = 8 → 64 warps = 100%; warps and registers both at the minimum.
    // Carveout: 8 blocks · 1 KiB = 8 KiB → the 8 KiB configuration.
    const r = occ("sm_80", 256, 32);
    assert.equal(r.activeBlocksPerSM, 8);
    assert.equal(r.activeWarpsPerSM, 64);
    assert.equal(r.maxWarpsPerSM, 64);
    assert.equal(r.occupancy, 1);
    assert.deepEqual(r.limits, { warps: 8, registers: 8, sharedMemory: 164, blocks: 32 });
    assert.deepEqual(r.limitedBy, ["warps", "registers"]);
    assert.equal(r.registersKnown, true);
    assert.equal(r.sharedCarveoutBytes, 8 * KiB);
    assert.equal(r.suggestion, undefined);
    assert.equal(r.reason, undefined);
  });

  test("2. sm_80, 256 threads, 64 registers → registers limit 4 blocks = 50%", () => {
    // Rw = roundUp(64·32 = 2048, 256) = 2048; hardware check 2048·8 = 16384 ≤ 65536;
    //   floor(16384/2048) = 8 warps per sub-partition → 32 warps/SM → floor(32/8) = 4 blocks.
    // Warps limit 8, shared 164, blocks 32 → 4 blocks · 8 warps = 32/64 = 50%.
    // Suggestion: the next ceiling is min(8, 32, 164) = 8 blocks, which needs Rw ≤ 1024, i.e. R ≤ 32.
    const r = occ("sm_80", 256, 64);
    assert.equal(r.activeBlocksPerSM, 4);
    assert.equal(r.activeWarpsPerSM, 32);
    assert.equal(r.occupancy, 0.5);
    assert.deepEqual(r.limitedBy, ["registers"]);
    assert.equal(r.limits.registers, 4);
    assert.equal(
      r.suggestion,
      "Registers limit occupancy to 50%: 64 registers per thread; at most 32 would allow 100% (cap with `cuda.jit(fn, { maxRegisters: 32 })`).",
    );
  });

  test("3. sm_75, 1024 threads → 1 block, 100%; no shared memory means no shared limit on Turing", () => {
    // W = 32; warps limit floor(32/32) = 1. Rw = 1024 → 16 warps/sub-partition → 64 warps → 2 blocks.
    // S = roundUp(0 + 0 reserved + 0, 256) = 0 → header INT_MAX (∞). Blocks limit 16.
    // min = 1 → 32 warps of 32 = 100%. Carveout for 0 bytes on Turing: the 32 KiB configuration.
    const r = occ("sm_75", 1024, 32);
    assert.equal(r.activeBlocksPerSM, 1);
    assert.equal(r.occupancy, 1);
    assert.deepEqual(r.limits, { warps: 1, registers: 2, sharedMemory: Infinity, blocks: 16 });
    assert.deepEqual(r.limitedBy, ["warps"]);
    assert.equal(r.sharedCarveoutBytes, 32 * KiB);
    assert.equal(r.suggestion, undefined);
  });

  test("4. sm_80, shared-memory limited: 128 threads with 40 KiB static → 4 blocks = 25%", () => {
    // W = 4: warps limit 16; Rw(32) = 1024 → 64 warps → 16 blocks; blocks limit 32.
    // S = roundUp(40960 + 1024 reserved, 128) = 41984 → floor(167936/41984) = 4 blocks.
    // 4 · 4 = 16 warps / 64 = 25%. Next ceiling min(16, 16, 32) = 16 blocks:
    //   S ≤ floor(167936/16/128)·128 = 10496 → user bytes ≤ 10496 − 1024 = 9472 = 9.25 KiB.
    // Carveout: 4 · 41984 = 167936 = the full 164 KiB.
    const r = occ("sm_80", 128, 32, 40 * KiB);
    assert.equal(r.activeBlocksPerSM, 4);
    assert.equal(r.occupancy, 0.25);
    assert.deepEqual(r.limitedBy, ["sharedMemory"]);
    assert.equal(r.sharedBytesPerBlock, 41984);
    assert.equal(r.sharedCarveoutBytes, 164 * KiB);
    assert.equal(
      r.suggestion,
      "Shared memory limits occupancy to 25%: each block uses 40 KiB (plus 1 KiB reserved by the driver); " +
        "at most 9.25 KiB per block would allow 12 more blocks (100%).",
    );
  });

  test("5. sm_80, the 128-byte granularity costs a block: 54926 dynamic bytes → 2 blocks, not 3", () => {
    // 54926 + 1024 = 55950 bytes; unrounded 167936/55950 = 3.0015 would give 3 blocks, but
    // S = roundUp(55950, 128) = 438·128 = 56064 → floor(167936/56064) = 2 blocks.
    // W = 4 (128 threads): warps 16, registers 16, blocks 32 → 2 blocks · 4 warps = 8/64 = 12.5%.
    // (Above 48 KiB per block, which is fine for dynamic shared memory with the opt-in attribute.)
    const r = occ("sm_80", 128, 32, 0, 54926);
    assert.equal(r.sharedBytesPerBlock, 56064);
    assert.equal(r.limits.sharedMemory, 2);
    assert.equal(r.activeBlocksPerSM, 2);
    assert.equal(r.occupancy, 0.125);
    // 2 · 56064 = 112128 bytes → the 132 KiB carveout.
    assert.equal(r.sharedCarveoutBytes, 132 * KiB);
  });

  test("6. sm_86 has 48 warp slots: 1024 threads → 1 block = 66.7%; 256 threads → 6 blocks = 100%", () => {
    // 1024 threads: W = 32 → floor(48/32) = 1 block; registers (32) 64 warps → 2; shared 100; blocks 16.
    //   32/48 warps = 66.7%. 768 threads (W = 24): floor(48/24) = 2 blocks = 48 warps = 100%, and it is
    //   the 100% block size closest to 1024.
    const big = occ("sm_86", 1024, 32);
    assert.equal(big.maxWarpsPerSM, 48);
    assert.equal(big.activeBlocksPerSM, 1);
    assert.equal(big.occupancy, 32 / 48);
    assert.deepEqual(big.limitedBy, ["warps"]);
    assert.equal(big.suggestion, "Blocks of 1024 threads leave 16 of 48 warp slots unused: use 768 threads per block (100% occupancy).");
    // 256 threads: W = 8 → floor(48/8) = 6; registers 64/8 = 8; shared floor(102400/1024) = 100; blocks 16.
    const r = occ("sm_86", 256, 32);
    assert.equal(r.activeBlocksPerSM, 6);
    assert.equal(r.activeWarpsPerSM, 48);
    assert.equal(r.occupancy, 1);
  });

  test("7. register count not a multiple of 8 rounds up through the 256-register unit", () => {
    // sm_80, 256 threads, 37 registers: 37·32 = 1184 → roundUp(1184, 256) = 1280 (like 40 registers).
    //   floor(16384/1280) = 12 warps per sub-partition → 48 warps → floor(48/8) = 6 blocks = 48/64 = 75%.
    // Next ceiling is 8 blocks (warps limit) → needs Rw ≤ 1024 → at most 32 registers.
    const r = occ("sm_80", 256, 37);
    assert.equal(r.limits.registers, 6);
    assert.equal(r.activeBlocksPerSM, 6);
    assert.equal(r.occupancy, 0.75);
    assert.deepEqual(occ("sm_80", 256, 40).limits, r.limits);
    assert.deepEqual(occ("sm_80", 256, 33).limits, r.limits);
    assert.match(r.suggestion ?? "", /^Registers limit occupancy to 75%: 37 registers per thread; at most 32 would allow 100%/);
  });

  test("8. registers are split over 4 sub-partitions: 96 threads × 37 registers → 16 blocks, not 17", () => {
    // W = 3; Rw = 1280. Whole-SM division would give floor(65536/1280) = 51 warps → 17 blocks, but each
    // sub-partition holds floor(16384/1280) = 12 warps → 48 warps → floor(48/3) = 16 blocks.
    // Warps limit floor(64/3) = 21; shared 164; blocks 32 → 16 blocks · 3 = 48 warps = 75%.
    const r = occ("sm_80", 96, 37);
    assert.equal(r.limits.registers, 16);
    assert.equal(r.limits.warps, 21);
    assert.equal(r.activeBlocksPerSM, 16);
    assert.equal(r.occupancy, 0.75);
  });

  test("9. tiny blocks hit the blocks-per-SM limit", () => {
    // sm_75, 32 threads, 16 registers: W = 1 → warps limit 32; Rw = 512 → 32 warps/sub-partition →
    // 128 blocks; shared ∞ (0 bytes, 0 reserved); blocks limit 16 → 16 warps of 32 = 50%.
    // 64 threads: warps 16, registers 64, blocks 16 → 32 warps = 100% (closest such size).
    const r = occ("sm_75", 32, 16);
    assert.equal(r.activeBlocksPerSM, 16);
    assert.equal(r.occupancy, 0.5);
    assert.deepEqual(r.limitedBy, ["blocks"]);
    assert.equal(r.suggestion, "Blocks of 32 threads hit the 16 blocks-per-SM limit: use 64 threads per block (100% occupancy).");
    // sm_89 allows 24 blocks: 64 threads → warps floor(48/2) = 24 = blocks 24 → 48 warps = 100%.
    const ada = occ("sm_89", 64, 32);
    assert.equal(ada.activeBlocksPerSM, 24);
    assert.deepEqual(ada.limitedBy, ["warps", "blocks"]);
    assert.equal(ada.occupancy, 1);
  });

  test("10. unknown registers: the register limit is ignored, never guessed", () => {
    // sm_80, 256 threads, registers unknown: warps 8, shared 164, blocks 32 → 8 blocks = 100%.
    const r = occ("sm_80", 256, undefined);
    assert.equal(r.registersKnown, false);
    assert.equal(r.limits.registers, undefined);
    assert.equal(r.activeBlocksPerSM, 8);
    assert.equal(r.occupancy, 1);
    assert.deepEqual(r.limitedBy, ["warps"]);
    // Shared memory still limits: 40 KiB static as in case 4 → 4 blocks = 25%.
    const s = occ("sm_80", 128, undefined, 40 * KiB);
    assert.equal(s.activeBlocksPerSM, 4);
    assert.deepEqual(s.limitedBy, ["sharedMemory"]);
  });

  test("11. the hardware register check rounds warps up to 4 (warp allocation granularity)", () => {
    // sm_80, 288 threads (W = 9), 224 registers: Rw = 224·32 = 7168 (already a multiple of 256).
    // Software check 7168·9 = 64512 ≤ 65536 would pass, but the hardware check uses roundUp(9, 4) = 12
    // warps: 7168·12 = 86016 > 65536 → the block cannot launch.
    // Fix: R ≤ 168 (Rw = 5376, ·12 = 64512) or ≤ 256 threads (W = 8: 7168·8 = 57344).
    const r = occ("sm_80", 288, 224);
    assert.equal(r.activeBlocksPerSM, 0);
    assert.equal(r.limits.registers, 0);
    assert.deepEqual(r.limitedBy, ["registers"]);
    assert.match(r.reason ?? "", /86016 registers per block/);
    assert.equal(
      r.suggestion,
      "288 threads × 224 registers exceed the 65536 registers a block may use: " +
        "cap registers at 168 with `cuda.jit(fn, { maxRegisters: 168 })` or use at most 256 threads per block.",
    );
    // 1024 threads: 64 registers fit exactly (2048·32 = 65536 → 1 block); 65 do not (2304·32 = 73728).
    assert.equal(occ("sm_80", 1024, 64).activeBlocksPerSM, 1);
    assert.equal(occ("sm_80", 1024, 65).activeBlocksPerSM, 0);
  });

  test("12. registers and shared memory tied → one sentence naming both", () => {
    // sm_80, 256 threads, 64 registers (registers limit 4, case 2) and 40 KiB static (shared limit 4, case 4).
    // Next ceiling: warps limit 8 → R ≤ 32, and S ≤ 167936/8 = 20992 → 20992 − 1024 = 19968 = 19.5 KiB.
    const r = occ("sm_80", 256, 64, 40 * KiB);
    assert.equal(r.activeBlocksPerSM, 4);
    assert.deepEqual(r.limitedBy, ["registers", "sharedMemory"]);
    assert.equal(
      r.suggestion,
      "Registers and shared memory both limit occupancy to 50%: at most 32 registers per thread and 19.5 KiB of shared memory " +
        "per block would allow 100% (cap registers with `cuda.jit(fn, { maxRegisters: 32 })`).",
    );
  });

  test("13. the driver's carveout is the smallest configuration holding the resident blocks", () => {
    // sm_80, 256 threads, 32 registers, 4 KiB static: S = 4096 + 1024 = 5120 → shared limit
    // floor(167936/5120) = 32, but warps/registers allow only 8 blocks → 8 · 5120 = 40960 → 64 KiB.
    // The shared limit (32) is computed against the full 164 KiB, as the header does, so it is not
    // reported as limiting.
    const r = occ("sm_80", 256, 32, 4 * KiB);
    assert.equal(r.limits.sharedMemory, 32);
    assert.deepEqual(r.limitedBy, ["warps", "registers"]);
    assert.equal(r.sharedCarveoutBytes, 64 * KiB);
    // sm_86, 128 threads, 10 KiB static: S = 11264 → floor(102400/11264) = 9 blocks (warps 12,
    // registers 16, blocks 16) → 36/48 = 75%; 9 · 11264 = 101376 → the 100 KiB configuration.
    const g = occ("sm_86", 128, 32, 10 * KiB);
    assert.equal(g.activeBlocksPerSM, 9);
    assert.equal(g.occupancy, 0.75);
    assert.equal(g.sharedCarveoutBytes, 100 * KiB);
  });

  test("14. sm_90: 1024 threads → 2 blocks = 100%; 228 KiB shared per SM", () => {
    // W = 32 → floor(64/32) = 2; registers (32): 64 warps → 2; shared floor(233472/1024) = 228; blocks 32.
    const r = occ("sm_90", 1024, 32);
    assert.equal(r.activeBlocksPerSM, 2);
    assert.equal(r.occupancy, 1);
    assert.deepEqual(r.limits, { warps: 2, registers: 2, sharedMemory: 228, blocks: 32 });
    // 200 KiB of dynamic shared memory (opt-in up to 227 KiB): S = 205824 → 1 block → 32/64 = 50%.
    const big = occ("sm_90", 1024, 32, 0, 200 * KiB);
    assert.equal(big.activeBlocksPerSM, 1);
    assert.equal(big.occupancy, 0.5);
    assert.equal(big.sharedCarveoutBytes, 228 * KiB);
  });

  test("15. a block size that is not a multiple of 32 leaves lanes idle", () => {
    // sm_80, 48 threads: W = 2 → warps limit 32; registers (32) 64/2 = 32; blocks 32 → 64 warps = 100%,
    // but 16 lanes of every second warp do nothing.
    const r = occ("sm_80", 48, 32);
    assert.equal(r.activeBlocksPerSM, 32);
    assert.equal(r.occupancy, 1);
    assert.equal(r.suggestion, "Block size 48 leaves 16 lanes of its last warp idle: use a multiple of 32 such as 64.");
  });
  test("16. registers tied with the blocks-per-SM limit → change block size and registers together", () => {
    // sm_75, 32 threads, 128 registers: W = 1 → warps limit 32; Rw = 4096 → floor(16384/4096) = 4 warps
    // per sub-partition → 16 warps → 16 blocks; shared ∞; blocks limit 16 → 16 warps of 32 = 50%,
    // limited by registers and blocks alike: neither fewer registers nor bigger blocks helps alone.
    // Without the register limit the 100% size closest to 32 is 64 (W = 2: warps 16, blocks 16);
    // 16 blocks · 2 warps = 32 warps need 8 warps per sub-partition → Rw ≤ 2048 → R ≤ 64.
    const r = occ("sm_75", 32, 128);
    assert.equal(r.activeBlocksPerSM, 16);
    assert.deepEqual(r.limitedBy, ["registers", "blocks"]);
    assert.equal(
      r.suggestion,
      "Registers and the 16 blocks-per-SM limit together limit occupancy to 50%: use 64 threads per block with " +
        "at most 64 registers per thread (`cuda.jit(fn, { maxRegisters: 64 })`) to reach 100%.",
    );
    assert.equal(occ("sm_75", 64, 64).occupancy, 1);
  });
});

describe("invalid inputs give 0 blocks and a reason, never an exception", () => {
  test("too many threads", () => {
    const r = occ("sm_80", 1025, 32);
    assert.equal(r.activeBlocksPerSM, 0);
    assert.equal(r.limits.warps, 0);
    assert.match(r.reason ?? "", /1025 threads per block exceeds the maximum of 1024/);
    assert.equal(r.suggestion, "Blocks of 1025 threads cannot launch: use at most 1024 threads per block.");
  });

  test("non-positive or fractional thread counts", () => {
    for (const t of [0, -32, 100.5, Number.NaN]) {
      const r = occ("sm_80", t, 32);
      assert.equal(r.activeBlocksPerSM, 0);
      assert.equal(r.occupancy, 0);
      assert.match(r.reason ?? "", /threadsPerBlock must be a positive integer/);
    }
  });

  test("more than 255 registers per thread, or a negative count", () => {
    const r = occ("sm_80", 128, 256);
    assert.equal(r.activeBlocksPerSM, 0);
    assert.match(r.reason ?? "", /256 registers per thread exceeds the maximum of 255/);
    assert.equal(occ("sm_80", 128, -1).activeBlocksPerSM, 0);
  });

  test("shared memory above the opt-in maximum, or static shared memory above 48 KiB", () => {
    // sm_86 opt-in maximum is 99 KiB: 100 KiB dynamic cannot launch; 99 KiB can (1 block).
    const over = occ("sm_86", 128, 32, 0, 100 * KiB);
    assert.equal(over.activeBlocksPerSM, 0);
    assert.deepEqual(over.limitedBy, ["sharedMemory"]);
    assert.match(over.reason ?? "", /exceeds the 99 KiB maximum on sm_86/);
    assert.equal(occ("sm_86", 128, 32, 0, 99 * KiB).activeBlocksPerSM, 1);
    const stat = occ("sm_80", 128, 32, 49 * KiB, 0);
    assert.equal(stat.activeBlocksPerSM, 0);
    assert.match(stat.suggestion ?? "", /dynamic shared array/);
    assert.equal(occ("sm_80", 128, 32, 0, -5).activeBlocksPerSM, 0);
  });

  test("unknown arch", () => {
    const r = occ("sm_99", 128, 32);
    assert.equal(r.activeBlocksPerSM, 0);
    assert.equal(r.maxWarpsPerSM, 0);
    assert.match(r.reason ?? "", /Unknown GPU architecture "sm_99": known architectures are sm_35, sm_37, sm_50/);
  });
});

describe("arch table", () => {
  test("parseArch accepts sm_XX, compute_XX, numbers and dotted versions", () => {
    assert.equal(parseArch("sm_80").name, "sm_80");
    assert.equal(parseArch("compute_86").name, "sm_86");
    assert.equal(parseArch(89).name, "sm_89");
    assert.equal(parseArch("9.0").name, "sm_90");
    assert.equal(parseArch("sm_90a").name, "sm_90");
    assert.equal(parseArch(" SM_75 ").name, "sm_75");
    assert.equal(parseArch("sm_70").family, "Volta");
    assert.throws(() => parseArch("sm_99"), UnknownArchError);
    assert.throws(() => parseArch("banana"), /known architectures are sm_35, sm_37, sm_50, .*, sm_120, sm_121/);
    assert.deepEqual(KNOWN_ARCH_NAMES, [
      "sm_35", "sm_37", "sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86",
      "sm_87", "sm_88", "sm_89", "sm_90", "sm_100", "sm_101", "sm_103", "sm_110", "sm_120", "sm_121",
    ]);
  });

  test("table rows are internally consistent", () => {
    for (const a of ARCHS) {
      assert.equal(a.maxWarpsPerSM * a.warpSize, a.maxThreadsPerSM, a.name);
      // From Volta on, the opt-in maximum + the reserved 1 KiB (0 before 8.0) is the whole SM; before
      // Volta there is no opt-in (48 KiB per block).
      if (a.computeMajor >= 7) assert.equal(a.maxSharedMemoryPerBlockOptin + a.reservedSharedMemoryPerBlock, a.sharedMemoryPerSM, a.name);
      else assert.equal(a.maxSharedMemoryPerBlockOptin, 48 * KiB, a.name);
      assert.equal(a.sharedMemoryCarveouts.at(-1), a.sharedMemoryPerSM, a.name);
      assert.equal(a.maxSharedMemoryPerBlock, 48 * KiB, a.name);
    }
    assert.deepEqual(parseArch("sm_80").sharedMemoryCarveouts, [0, 8, 16, 32, 64, 100, 132, 164].map((k) => k * KiB));
    assert.equal(alignUpToCarveout(parseArch("sm_86"), 65 * KiB), 100 * KiB);
    assert.equal(alignUpToCarveout(parseArch("sm_86"), 101 * KiB), undefined);
  });

  test("every architecture NVRTC targets is in the table: occupancy is never 0 % for lack of a row", () => {
    // NVRTC 11.8 targets sm_35 … sm_90; CUDA 13's NVRTC sm_75 … sm_121 (nvcc --list-gpu-arch), 12.8/12.9 also sm_101.
    const cuda13 = [75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121];
    const nvrtc = loadNvrtc();
    const installed = nvrtc.ok ? nvrtc.nvrtc.info.supportedArchs : []; // nvrtcGetSupportedArchs
    for (const cc of new Set([...installed, ...cuda13, 101])) {
      const r = occ(`sm_${cc}`, 256, 32);
      assert.equal(r.reason, undefined, `sm_${cc}`);
      assert.ok(r.occupancy > 0, `sm_${cc}: ${r.occupancy}`);
    }
    // V100 (sm_70), hand-worked: 256 threads × 32 registers → 8 blocks of 8 warps = 64 warps = 100 %;
    // 64 registers: 2048 per warp → 16384 / 2048 = 8 warps per sub-partition, 32 per SM → 4 blocks = 50 %.
    assert.equal(occ("sm_70", 256, 32).occupancy, 1);
    assert.equal(occ("sm_70", 256, 64).occupancy, 0.5);
    // GTX 1080 (sm_61) with 40 KiB of static shared memory: 96 KiB per SM / 40 KiB → 2 blocks of 8 warps = 25 %.
    assert.equal(occ("sm_61", 256, undefined, 40 * KiB).occupancy, 0.25);
  });
});

describe("block-size helpers", () => {
  test("occupancyForBlockSizes: sm_80 with 64 registers is 50% at every default size", () => {
    // Registers allow 32 warps/SM (case 2), so 128 → 8 blocks, 256 → 4, 512 → 2, 1024 → 1: always 32 warps.
    const rows = occupancyForBlockSizes({ arch: "sm_80", registersPerThread: 64, staticSharedBytes: 0, dynamicSharedBytes: 0 });
    assert.deepEqual(
      rows.map((r) => [r.threadsPerBlock, r.result.activeBlocksPerSM, r.result.occupancy]),
      [[128, 8, 0.5], [256, 4, 0.5], [512, 2, 0.5], [1024, 1, 0.5]],
    );
  });

  test("maxPotentialBlockSize: sm_86 → 768 (first size from the top reaching 1536 threads)", () => {
    // 1024 → 1 block (1024 threads); 992..800 → 1 block; 768 → 2 blocks = 1536 = maxThreadsPerSM → stop.
    assert.deepEqual(maxPotentialBlockSize({ arch: "sm_86", registersPerThread: 32, staticSharedBytes: 0, dynamicSharedBytes: 0 }), {
      threadsPerBlock: 768,
      activeBlocksPerSM: 2,
      occupancy: 1,
    });
  });
});

describe("launchBounds", () => {
  const base = { arch: "sm_80", registersPerThread: 32, staticSharedBytes: 0, dynamicSharedBytes: 0 };

  test("a block above the kernel's launchBounds cannot launch, and the suggestion says the bound", () => {
    const r = computeOccupancy({ ...base, threadsPerBlock: 256, launchBounds: { maxThreadsPerBlock: 128 } });
    assert.equal(r.activeBlocksPerSM, 0);
    assert.match(r.reason!, /launchBounds allows at most 128 threads per block/);
    assert.match(r.suggestion!, /use at most 128/);
    // At the bound: the same as without it (W = 4, 16 blocks, 100%).
    const at = computeOccupancy({ ...base, threadsPerBlock: 128, launchBounds: { maxThreadsPerBlock: 128 } });
    assert.equal(at.activeBlocksPerSM, 16);
    assert.equal(at.occupancy, 1);
  });

  test("no suggested block size is above the bound", () => {
    // 32 threads: 32 blocks × 1 warp = 50%, limited by the 32 blocks-per-SM cap; 64 threads would give 100%.
    const free = computeOccupancy({ ...base, threadsPerBlock: 32 });
    assert.match(free.suggestion!, /use 64 threads per block/);
    const bounded = computeOccupancy({ ...base, threadsPerBlock: 32, launchBounds: { maxThreadsPerBlock: 32 } });
    assert.equal(bounded.occupancy, 0.5);
    assert.equal(bounded.suggestion, undefined);
    // 100 threads: rounding up to a warp multiple (128) would pass the bound of 100, so round down.
    const ragged = computeOccupancy({ ...base, threadsPerBlock: 100, launchBounds: { maxThreadsPerBlock: 100 } });
    assert.match(ragged.suggestion!, /such as 96\./);
    assert.ok(maxPotentialBlockSize({ ...base, launchBounds: { maxThreadsPerBlock: 96 } }).threadsPerBlock <= 96);
    assert.equal(maxPotentialBlockSize(base).threadsPerBlock, 1024);
  });

  test("[max, minBlocks] caps registers so that minBlocks blocks of max threads fit on an SM", () => {
    // 128 threads = 4 warps; 4 blocks need floor(16384 / Rw) ≥ 4, Rw = 32·R ≤ 4096 → R ≤ 128.
    assert.equal(launchBoundsRegisterCap("sm_80", { maxThreadsPerBlock: 128, minBlocksPerMultiprocessor: 4 }), 128);
    // 1024 threads = 32 warps; 2 blocks need floor(4 · floor(16384 / Rw) / 32) ≥ 2 → Rw ≤ 1024 → R ≤ 32.
    assert.equal(launchBoundsRegisterCap("sm_80", { maxThreadsPerBlock: 1024, minBlocksPerMultiprocessor: 2 }), 32);
    assert.equal(launchBoundsRegisterCap("sm_80", { maxThreadsPerBlock: 1024 }), undefined);
  });
});
