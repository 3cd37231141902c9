// Child process of selection.test.ts: which backend does a program get, in a process of its own, from
// CUDASCRIPT_BACKEND / CUDASCRIPT_LIBCUDA (a libcuda TEST DOUBLE, a missing library, or none)? Uses
// the backend several times, so a reason printed more than once would show.
import { cuda, f32 } from "cudascript";
import { backendChoice, currentBackend } from "cudascript/dist/host/device";

try {
  const first = cuda.backend;
  const d = cuda.toDevice(Float32Array.from([1, 2, 3]));
  const again = cuda.backend;
  const back = [...(d.copyToHost() as Float32Array)];
  d.free();
  const pinned = cuda.pinnedArray(4, f32);
  console.log(
    JSON.stringify({
      backend: first,
      again,
      gpus: cuda.gpus,
      description: currentBackend().description,
      choice: backendChoice(),
      back,
      pinnedLength: pinned.length,
    }, (k, v) => (k === "probe" ? undefined : v)),
  );
} catch (e) {
  console.log(JSON.stringify({ error: (e as Error).message, code: (e as { code?: string }).code }));
}
