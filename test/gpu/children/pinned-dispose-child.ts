// Child process of double-pinned-lifetime.test.ts, run with --expose-gc and CUDASCRIPT_LIBCUDA=<the
// libcuda TEST DOUBLE> (not NVIDIA's driver), which poisons freed pinned memory (an access faults).
//   keep-view-past-dispose: a cuda.pinnedArray outlives backend.dispose(); reports what it reads,
//     then drops it, collects it and reports what the double freed.
//   touch-freed-memory: reads pinned memory through a raw view after cuMemFreeHost — the access
//     the double must turn into a segmentation fault (so the first mode proves something).
import { openDriverDouble } from "../../driver-double/test-double";
import { CudaContext } from "@cudascript/native-bindings/cuda";
import { cuda, f32 } from "cudascript";
import type { GpuBackend } from "cudascript/dist/gpu/backend";
import { currentBackend } from "cudascript/dist/host/device";
import { createRequire } from "node:module";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const double = openDriverDouble(process.env.CUDASCRIPT_LIBCUDA!);

function primaryContextDestroyed(): boolean {
  return double.calls("cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease").some((e) => e.destroyed === true);
}

async function collectUntil(done: () => boolean): Promise<void> {
  for (let round = 0; round < 100 && !done(); round++) {
    gc!();
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function keepViewPastDispose(): Promise<void> {
  const backend = currentBackend() as GpuBackend;
  if (backend.kind !== "gpu") throw new Error(`expected the GPU backend, got ${backend.kind}`);
  let kept: Float32Array | undefined = cuda.pinnedArray(1000, f32) as Float32Array;
  for (let i = 0; i < kept.length; i++) kept[i] = i * 0.5;
  backend.dispose();
  const afterDispose = { livePinned: double.live().pinned, primaryContextDestroyed: primaryContextDestroyed(), frees: double.callCount("cuMemFreeHost") };
  let readsBack = true; // this loop is the access that faulted when dispose() freed the memory
  for (let i = 0; i < kept.length; i++) if (kept[i] !== i * 0.5) readsBack = false;
  kept = undefined;
  await collectUntil(() => double.live().pinned === 0 && primaryContextDestroyed());
  console.log(
    JSON.stringify({
      afterDispose,
      readsBack,
      afterCollection: { livePinned: double.live().pinned, primaryContextDestroyed: primaryContextDestroyed(), frees: double.callCount("cuMemFreeHost") },
    }),
  );
}

function touchFreedMemory(): void {
  const ctx = CudaContext.retain();
  const pinned = ctx.allocPinned(4096); // never viewed through the bindings: freed at once
  const pointer = pinned.pointer;
  pinned.free();
  const koffi = createRequire(__filename)("koffi") as { view(p: bigint, n: number): ArrayBuffer };
  const raw = new Uint8Array(koffi.view(pointer, 4096));
  console.log(`read ${raw[0]} from freed pinned memory`); // must not be reached
}

const mode = process.argv[2];
if (mode === "touch-freed-memory") touchFreedMemory();
else
  keepViewPastDispose().catch((e) => {
    console.error(e);
    process.exit(1);
  });
