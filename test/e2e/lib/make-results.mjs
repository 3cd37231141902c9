/**
 * Writes a results file the way a running program does — with the runtime's own writer
 * (runtime/src/report/writer.ts) — so the results panel can be tested on its own: a saxpy launch with
 * a 1-D array and its reference, a Mandelbrot launch with a 2-D image, a sanitizer finding, log lines.
 * usage: node make-results.mjs OUT.jsonl KERNELS_TS_PATH
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [out, kernelsFile] = process.argv.slice(2);
process.env.CUDASCRIPT_RESULTS_FILE = out;
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const require = createRequire(join(root, "package.json"));
const { writeRecord, arrayRecord, nextLaunchId } = require("cudascript/dist/report/writer");
const { PROTOCOL_VERSION } = require("cudascript/dist/report/protocol");

writeRecord({ type: "run", version: PROTOCOL_VERSION, program: "fixture", backend: "simulator", device: "Simulator (2 workers)", startedAt: new Date().toISOString() });

// saxpy, 1M elements
const n = 1 << 20;
const x = new Float32Array(n), y = new Float32Array(n), outArr = new Float32Array(n), ref = new Float32Array(n);
for (let i = 0; i < n; i++) {
  x[i] = Math.sin(i / 4096);
  y[i] = (i % 1000) / 1000;
  outArr[i] = Math.fround(2.5 * x[i]) + y[i];
  ref[i] = outArr[i];
}
const l1 = nextLaunchId();
writeRecord({
  type: "launch", id: l1, kernel: "saxpy", file: kernelsFile, line: 9, grid: [4096, 1, 1], block: [256, 1, 1], sharedMemBytes: 0, backend: "simulator",
  timings: { compileMs: 41.2, hostToDeviceMs: 1.9, kernelMs: 12.4, deviceToHostMs: 0.8 },
  occupancy: { arch: "sm_80", percent: 100, limitedBy: ["warps"], registers: 10 },
});
writeRecord(arrayRecord("out", "f32", [n], outArr, { launchId: l1, reference: ref, tolerance: 1e-5 }));

// mandelbrot, 384 x 512
const W = 512, H = 384, MAX = 96;
const counts = new Int32Array(W * H);
for (let r = 0; r < H; r++)
  for (let c = 0; c < W; c++) {
    const cr = -2.3 + c * (3.2 / W), ci = -1.2 + r * (3.2 / W);
    let zr = 0, zi = 0, k = 0;
    while (k < MAX && zr * zr + zi * zi <= 4) {
      const nz = zr * zr - zi * zi + cr;
      zi = 2 * zr * zi + ci;
      zr = nz;
      k++;
    }
    counts[r * W + c] = k;
  }
const l2 = nextLaunchId();
writeRecord({
  type: "launch", id: l2, kernel: "mandelbrot", file: kernelsFile, line: 21, grid: [1536, 1, 1], block: [128, 1, 1], sharedMemBytes: 0, backend: "simulator",
  timings: { compileMs: 55.0, hostToDeviceMs: 0.1, kernelMs: 38.6, deviceToHostMs: 0.4 },
  occupancy: { arch: "sm_80", percent: 75, limitedBy: ["registers"], registers: 40 },
});
writeRecord(arrayRecord("counts", "i32", [H, W], counts, { launchId: l2 }));
writeRecord({ type: "finding", kind: "out-of-bounds", message: "write to out[1048576] (length 1048576) <script>alert(1)</script>", kernel: "saxpy", file: kernelsFile, line: 12, block: [4096, 0, 0], thread: [0, 0, 0] });
writeRecord({ type: "log", text: "fixture: 2 launches, 2 arrays" });
