/**
 * Test helper: compiles a tiny host program around NVIDIA's header-only `cuda_occupancy.h` with
 * g++ and queries it, so tests can compare this calculator with the header itself.
 *
 * Protocol (one query per stdin line, one answer line per query):
 *   A major minor threadsPerSM smemPerSM smemOptin reserved regsPerSM regsPerBlock threads regs static dynamic
 *     → `err active limitWarps limitRegs limitSmem limitBlocks limitingFactors`
 *       (`cudaOccMaxActiveBlocksPerMultiprocessor`)
 *   P major minor threadsPerSM smemPerSM smemOptin reserved regsPerSM regsPerBlock regs dynamic
 *     → `err blockSize minGridSize` (`cudaOccMaxPotentialOccupancyBlockSize`, 1 SM, static 0)
 *   H major minor
 *     → `smemGranularity regGranularity regMaxPerThread subPartitions maxBlocksPerSM`
 *   C major minor bytes
 *     → `err alignedBytes` (`cudaOccAlignUpShmemSizeVoltaPlus`)
 * Device properties not taken from the line are the same on every supported arch: 1024 threads
 * per block, warp size 32, 48 KiB default shared per block.
 * The function opts in to the largest dynamic shared size (`FUNC_SHMEM_LIMIT_OPTIN`,
 * `maxDynamicSharedSizeBytes = optin - static`) and uses one block barrier, like a kernel with
 * `__syncthreads` whose attributes come from `cudaFuncGetAttributes`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SOURCE = String.raw`
#include <cuda_occupancy.h>
#include <climits>
#include <cstdio>
#include <cstring>

static void setProps(cudaOccDeviceProp &p, int major, int minor, int threadsPerSM, long smemPerSM, long optin, long reserved, int regsPerSM, int regsPerBlock) {
  p.computeMajor = major;
  p.computeMinor = minor;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsPerMultiprocessor = threadsPerSM;
  p.regsPerBlock = regsPerBlock;
  p.regsPerMultiprocessor = regsPerSM;
  p.warpSize = 32;
  p.sharedMemPerBlock = 48 * 1024;
  p.sharedMemPerMultiprocessor = (size_t)smemPerSM;
  p.numSms = 1;
  p.sharedMemPerBlockOptin = (size_t)optin;
  p.reservedSharedMemPerBlock = (size_t)reserved;
}

static void setAttrs(cudaOccFuncAttributes &a, int regs, long st, long optin) {
  a.maxThreadsPerBlock = INT_MAX;
  a.numRegs = regs;
  a.sharedSizeBytes = (size_t)st;
  a.partitionedGCConfig = PARTITIONED_GC_OFF;
  a.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  a.maxDynamicSharedSizeBytes = (size_t)(optin - st);
  a.numBlockBarriers = 1;
  a.virtualResourceCount = 0;
}

int main() {
  char kind[4];
  while (scanf("%3s", kind) == 1) {
    int major, minor;
    if (scanf("%d %d", &major, &minor) != 2) return 2;
    cudaOccDeviceProp p;
    p.computeMajor = major;
    p.computeMinor = minor;
    if (kind[0] == 'A') {
      int threadsPerSM, threads, regs, regsPerSM, regsPerBlock;
      long smemPerSM, optin, reserved, st, dyn;
      if (scanf("%d %ld %ld %ld %d %d %d %d %ld %ld", &threadsPerSM, &smemPerSM, &optin, &reserved, &regsPerSM, &regsPerBlock, &threads, &regs, &st, &dyn) != 10) return 2;
      setProps(p, major, minor, threadsPerSM, smemPerSM, optin, reserved, regsPerSM, regsPerBlock);
      cudaOccFuncAttributes a;
      setAttrs(a, regs, st, optin);
      cudaOccDeviceState s;
      cudaOccResult r;
      memset(&r, 0, sizeof r);
      int err = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &a, &s, threads, (size_t)dyn);
      printf("%d %d %d %d %d %d %u\n", err, r.activeBlocksPerMultiprocessor, r.blockLimitWarps, r.blockLimitRegs,
             r.blockLimitSharedMem, r.blockLimitBlocks, r.limitingFactors);
    } else if (kind[0] == 'P') {
      int threadsPerSM, regs, regsPerSM, regsPerBlock;
      long smemPerSM, optin, reserved, dyn;
      if (scanf("%d %ld %ld %ld %d %d %d %ld", &threadsPerSM, &smemPerSM, &optin, &reserved, &regsPerSM, &regsPerBlock, &regs, &dyn) != 8) return 2;
      setProps(p, major, minor, threadsPerSM, smemPerSM, optin, reserved, regsPerSM, regsPerBlock);
      cudaOccFuncAttributes a;
      setAttrs(a, regs, 0, optin);
      cudaOccDeviceState s;
      int minGrid = 0, blockSize = 0;
      int err = cudaOccMaxPotentialOccupancyBlockSize(&minGrid, &blockSize, &p, &a, &s, (size_t)dyn);
      printf("%d %d %d\n", err, blockSize, minGrid);
    } else if (kind[0] == 'H') {
      int g = 0, rg = 0, rmax = 0, sub = 0, blocks = 0;
      cudaOccSMemAllocationGranularity(&g, &p);
      cudaOccRegAllocationGranularity(&rg, &p);
      cudaOccRegAllocationMaxPerThread(&rmax, &p);
      cudaOccSubPartitionsPerMultiprocessor(&sub, &p);
      cudaOccMaxBlocksPerMultiprocessor(&blocks, &p);
      printf("%d %d %d %d %d\n", g, rg, rmax, sub, blocks);
    } else if (kind[0] == 'C') {
      long bytes;
      if (scanf("%ld", &bytes) != 1) return 2;
      size_t size = (size_t)bytes;
      int err = cudaOccAlignUpShmemSizeVoltaPlus(&size, &p);
      printf("%d %ld\n", err, err == 0 ? (long)size : -1L);
    } else {
      return 3;
    }
  }
  return 0;
}
`;

export interface HeaderOracle {
  /** Sends query lines, returns the answer lines (same count). */
  query(lines: readonly string[]): string[];
  dispose(): void;
}

/** Header directory: `$CUDA_HOME/include`, `$CUDA_PATH/include` or `/usr/local/cuda/include`. */
export function cudaIncludeDir(): string {
  const root = process.env.CUDA_HOME ?? process.env.CUDA_PATH ?? "/usr/local/cuda";
  return join(root, "include");
}

/** Builds the oracle, or returns a string saying why it is unavailable (no g++ / no header). */
export function buildHeaderOracle(): HeaderOracle | string {
  const include = cudaIncludeDir();
  if (!existsSync(join(include, "cuda_occupancy.h"))) return `cuda_occupancy.h not found in ${include}`;
  try {
    execFileSync("g++", ["--version"], { stdio: "ignore" });
  } catch {
    return "g++ not available";
  }
  const dir = mkdtempSync(join(tmpdir(), "cudascript-occ-"));
  const src = join(dir, "oracle.cpp");
  const exe = join(dir, "oracle");
  writeFileSync(src, SOURCE);
  try {
    execFileSync("g++", ["-std=c++17", "-O1", "-w", `-I${include}`, src, "-o", exe], { stdio: "pipe" });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    const err = e as { stderr?: Buffer };
    return `g++ failed to compile the cuda_occupancy.h oracle: ${err.stderr?.toString() ?? String(e)}`;
  }
  return {
    query(lines) {
      if (lines.length === 0) return [];
      const out = execFileSync(exe, { input: lines.join("\n") + "\n", maxBuffer: 1 << 30 }).toString();
      const answers = out.split("\n").filter((l) => l.length > 0);
      if (answers.length !== lines.length) throw new Error(`oracle answered ${answers.length} of ${lines.length} queries`);
      return answers;
    },
    dispose() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
