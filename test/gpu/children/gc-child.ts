// Child process of double-gc.test.ts, run with --expose-gc and CUDASCRIPT_LIBCUDA=<the libcuda TEST
// DOUBLE> (not NVIDIA's driver). Drops device arrays and pinned arrays without free(), forces garbage
// collection, and reports what the double saw: which allocations were freed, and how often.
import { openDriverDouble } from "../../driver-double/test-double";
import { cuda, f32, i32 } from "cudascript";
import type { GpuBackend, GpuBuffer } from "cudascript/dist/gpu/backend";
import { currentBackend } from "cudascript/dist/host/device";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");

function allocate(n: number, freeEvery: number): { pointers: string[]; explicitlyFreed: string[] } {
  const pointers: string[] = [];
  const explicitlyFreed: string[] = [];
  for (let i = 0; i < n; i++) {
    const d = i % 2 ? cuda.deviceArray(100 + i, f32) : cuda.toDevice(new Int32Array(50 + i));
    const p = `0x${((d as unknown as { buffer: GpuBuffer }).buffer).pointer.toString(16)}`;
    pointers.push(p);
    if (i % freeEvery === 0) {
      d.free();
      explicitlyFreed.push(p);
    }
  }
  for (let i = 0; i < 5; i++) cuda.pinnedArray(4096 + i, f32)[0] = 1; // dropped at once
  return { pointers, explicitlyFreed };
}

async function main(): Promise<void> {
  const backend = currentBackend() as GpuBackend;
  if (backend.kind !== "gpu") throw new Error(`expected the GPU backend, got ${backend.kind}`);
  const double = openDriverDouble(process.env.CUDASCRIPT_LIBCUDA!);
  const kept = cuda.toDevice(Int32Array.from([1, 2, 3]));
  const keptPointer = `0x${((kept as unknown as { buffer: GpuBuffer }).buffer).pointer.toString(16)}`;
  const { pointers, explicitlyFreed } = allocate(100, 3);
  const pinnedLiveBefore = double.live().pinned;
  for (let round = 0; round < 100 && (backend.memoryStats().liveAllocations > 1 || backend.memoryStats().livePinned > 0); round++) {
    gc!();
    await new Promise((r) => setTimeout(r, 5));
  }
  const frees = double.calls("cuMemFree_v2").map((e) => e.dptr as string);
  const stillThere = [...kept.copyToHost()].join(",");
  console.log(
    JSON.stringify({
      pointers,
      explicitlyFreed,
      keptPointer,
      frees,
      stillThere,
      stats: backend.memoryStats(),
      live: double.live(),
      pinnedLiveBefore,
      pinnedFrees: double.callCount("cuMemFreeHost"),
    }),
  );
  void i32;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
