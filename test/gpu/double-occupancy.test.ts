// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver: nothing runs on a
// GPU. Proves that on a GPU the occupancy reported for a launch is the driver's
// (cuOccupancyMaxActiveBlocksPerMultiprocessor and the device's warp slots), so a GPU the
// calculator's table does not know still gets its real occupancy, never 0 %.
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { cuda, f32 } from "cudascript";
import { GpuBackend } from "cudascript/dist/gpu/backend";
import { setBackend } from "cudascript/dist/host/device";
import { gpuOnDouble, kernel, kindsArtifact } from "./helpers";

// Launch records are written when this is set (read once, at the first record).
const RESULTS = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "cs-occ-")), "results.jsonl");
process.env.CUDASCRIPT_RESULTS_FILE = RESULTS;

const COMPUTE_CAPABILITY_MAJOR = 75; // CU_DEVICE_ATTRIBUTE_…
const COMPUTE_CAPABILITY_MINOR = 76;

interface LaunchRecord {
  type: string;
  kernel: string;
  occupancy?: { arch: string; percent: number; limitedBy: string[]; source?: string };
}

const launches = (): LaunchRecord[] =>
  (fs.existsSync(RESULTS) ? fs.readFileSync(RESULTS, "utf8") : "")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LaunchRecord)
    .filter((r) => r.type === "launch");

describe("launch occupancy on the GPU (libcuda TEST DOUBLE)", () => {
  for (const [major, minor, known] of [
    [9, 9, false], // an architecture no table has
    [7, 0, true], // V100
  ] as const) {
    it(`sm_${major}${minor}: the driver's occupancy${known ? ", with the calculator's limiting factors" : ", not 0 %"}`, (t) => {
      const env = gpuOnDouble(t);
      if (!env) return;
      const { double } = env;
      double.setDeviceAttribute(0, COMPUTE_CAPABILITY_MAJOR, major);
      double.setDeviceAttribute(0, COMPUTE_CAPABILITY_MINOR, minor);
      setBackend(new GpuBackend({ driver: double.driver, cache: false })); // reads the device anew
      const before = launches().length;
      const out = cuda.deviceArray(256, f32);
      kernel(kindsArtifact(), "dynamicShared").launch(1, 256, { sharedMem: 1024 })(out);
      const record = launches().slice(before).at(-1);
      const asked = double.calls("cuOccupancyMaxActiveBlocksPerMultiprocessor").at(-1);
      assert.ok(asked, "the driver was asked");
      assert.deepEqual([asked.blockSize, asked.dynamicSharedMem], [256, 1024]);
      // The double's device: 2048 threads = 64 warp slots per SM; a 256-thread block is 8 warps.
      const blocks = asked.blocks as number;
      assert.ok(blocks > 0);
      assert.equal(record?.occupancy?.arch, `sm_${major}${minor}`);
      assert.equal(record?.occupancy?.source, "driver");
      assert.equal(record?.occupancy?.percent, Math.round(((blocks * 8) / 64) * 1000) / 10);
      assert.ok(record!.occupancy!.percent > 0);
      if (known) assert.ok(record!.occupancy!.limitedBy.length > 0);
      else assert.deepEqual(record!.occupancy!.limitedBy, []);
      out.free();
    });
  }
});
