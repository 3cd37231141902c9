// Child process of double-printf.test.ts, with CUDASCRIPT_LIBCUDA=<the libcuda TEST DOUBLE> (not
// NVIDIA's driver; it "prints" scripted device printf output at synchronization points only).
//   exit-without-sync: launches a printing kernel and ends without any synchronization.
//   fault-at-exit: the same, but the kernel faults: the exit flush must report it.
//   small-fifo: a 64-byte printf buffer (CUDASCRIPT_PRINTF_BUFFER) drops what does not fit;
//     resizing after the launch is CSR049.
//   overflow-at-exit: like exit-without-sync, but the launch adds 1000 bytes to the kernel's printf
//     byte counter (as its console.log calls would): the exit flush must warn (CSR050).
import { openDriverDouble } from "../../driver-double/test-double";
import { configureGpu, cuda, f32 } from "cudascript";
import type { GpuBackend } from "cudascript/dist/gpu/backend";
import { currentBackend } from "cudascript/dist/host/device";
import { compileSource, kernel } from "../../simulator/helpers";

const SOURCE = `
import { cuda } from "cudascript";
export const hello = cuda.jit((out: Float32Array) => {
  const i = cuda.grid(1);
  console.log("hello from thread", i);
  out[i] = i;
});
`;

const double = openDriverDouble(process.env.CUDASCRIPT_LIBCUDA!);
const backend = currentBackend() as GpuBackend;
if (backend.kind !== "gpu") throw new Error(`expected the GPU backend, got ${backend.kind}`);
const artifact = compileSource(SOURCE);
const hello = kernel(artifact, "hello");
backend.loadModule(artifact);
const symbol = String(double.calls("cuModuleGetFunction")[0]?.name ?? "hello");
const lines = Array.from({ length: 8 }, (_, i) => `hello from thread ${i}\n`).join("");
double.printfOnLaunch(symbol, lines);
const out = cuda.deviceArray(8, f32);

const mode = process.argv[2];
if (mode === "fault-at-exit") double.failKernel(symbol, 700);
if (mode === "overflow-at-exit") double.addToGlobalOnLaunch(symbol, "cs_printf_bytes", 1000);
hello.launch(1, 8)(out);
console.log(`launched ${symbol}`);
if (mode === "small-fifo") {
  cuda.synchronize();
  let resize = "resized";
  try {
    configureGpu({ printfBufferSize: 4096 });
  } catch (e) {
    resize = (e as Error).message;
  }
  console.log(JSON.stringify({ printfBufferSize: backend.printfBufferSize, dropped: double.printfDropped(0), resize }));
}
// No synchronization: kernel output reaches stdout only through the exit flush.
