/**
 * Hovers through the real server: occupancy numbers equal to hand-worked cases (sm_80 by default,
 * sm_75 after a configuration change), registers marked unknown when NVRTC is off, and API docs for
 * every `cuda.*` member the kernel API has, `Math.*` and dtypes.
 */
import { after, before, describe, it } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { find, LspClient, tempDir, uriOf } from "./harness";
import { OCCUPANCY_FIXTURE } from "./occupancy-fixture";
import { CUDA_INTRINSIC_PATHS } from "@cudascript/compiler/intrinsics";

/*
 * Hand-worked occupancy (cuda_occupancy.h formulas), registers unknown so no register limit:
 *
 * sm_80: 64 warps/SM, 32 blocks/SM, 164 KiB = 167936 B shared/SM, 1 KiB reserved per block,
 *        allocation granularity 128 B.
 *   bigTile, 40960 B static: per block roundUp(40960 + 1024, 128) = 41984 → 167936 / 41984 = 4 blocks.
 *     128 threads = 4 warps: warps limit 16 → 4 blocks → 16 warps = 25 %, limited by shared memory
 *     256 threads = 8 warps: warps limit 8 → 4 blocks → 32 warps = 50 %, shared memory
 *     512 threads = 16 warps: warps limit 4 → 4 blocks → 64 warps = 100 %, warps and shared memory
 *     1024 threads = 32 warps: warps limit 2 → 2 blocks → 64 warps = 100 %, warps
 *   small, 1024 B static, 256 threads: roundUp(2048, 128) = 2048 → 82 blocks; warps limit 8 → 8 blocks,
 *     64 warps = 100 %, limited by warps.
 *   dyn, 0 static + 16384 B dynamic, 128 threads: roundUp(17408, 128) = 17408 → 9 blocks (9.65);
 *     warps limit 16 → 9 blocks → 36 warps of 64 = 56.25 % → "56.3%", limited by shared memory.
 * sm_75: 32 warps/SM, 16 blocks/SM, 64 KiB shared/SM, nothing reserved, granularity 256 B.
 *   bigTile at 256 threads: 65536 / 40960 = 1 block; warps limit 4 → 1 block → 8 of 32 warps = 25 %.
 */

describe("occupancy hover", () => {
  let client: LspClient;
  let config: Record<string, unknown> = {};
  const dir = tempDir("cs-lsp-hover-");
  const uri = uriOf(path.join(dir, "occupancy.ts"));
  const text = OCCUPANCY_FIXTURE;

  before(async () => {
    client = await LspClient.start({
      env: { CUDASCRIPT_NVRTC: "off" },
      initializationOptions: { diagnostics: { debounceMs: 0 } },
      configuration: () => config,
    });
    const diagnostics = await client.openAndWait(uri, text);
    assert.deepEqual(diagnostics, [], "the fixture must be clean");
  });
  after(async () => {
    await client.stop();
  });

  it("on a launch site: hand-worked numbers for the launch's block size (sm_80)", async () => {
    const md = await client.hoverText(uri, find(text, "bigTile.launch", 3));
    assert.ok(md, "no hover");
    assert.match(md, /on sm_80/);
    assert.match(md, /\| Static shared memory \| 40 KiB \(40960 bytes\) per block \|/);
    assert.match(md, /\| Dynamic shared memory \| none \|/);
    assert.match(md, /\| 256 \| 4 \| ≤ 50% \| shared memory \|/);
    assert.match(md, /\| Registers per thread \| unknown \(NVRTC not available: disabled by CUDASCRIPT_NVRTC=off\) \|/);
    assert.match(md, /\*\*Suggestion\*\* \(256 threads\): \S/);
  });

  it("on `launch(` itself and on a launch argument", async () => {
    const onLaunch = await client.hoverText(uri, find(text, "small.launch(", 7));
    assert.match(onLaunch ?? "", /\| 256 \| 8 \| ≤ 100% \| warps \|/);
    assert.match(onLaunch ?? "", /1 KiB \(1024 bytes\) per block/);
    const onArg = await client.hoverText(uri, find(text, "small.launch(64, 256", 17));
    assert.equal(onArg, onLaunch);
  });

  it("on a kernel's name: 128/256/512/1024 threads", async () => {
    const md = await client.hoverText(uri, find(text, "const bigTile", 8));
    assert.ok(md, "no hover");
    assert.match(md, /\| 128 \| 4 \| ≤ 25% \| shared memory \|/);
    assert.match(md, /\| 256 \(launch\) \| 4 \| ≤ 50% \| shared memory \|/);
    assert.match(md, /\| 512 \| 4 \| ≤ 100% \| warps, shared memory \|/);
    assert.match(md, /\| 1024 \| 2 \| ≤ 100% \| warps \|/);
    assert.match(md, /upper bound/);
  });

  it("a launch-bounded kernel: the bound and its register cap are shown, no row or suggestion above the bound", async () => {
    // launchBounds [192, 2] on sm_80: 192 threads = 6 warps, warps limit floor(64 / 6) = 10 blocks = 60 of
    // 64 warps = 93.75 %; 128 threads reach 100 % (256 would too, but is above the bound).
    // Register cap: 2 blocks of 6 warps need floor(4 · floor(16384 / Rw) / 6) ≥ 2 → Rw ≤ 5376 → R ≤ 168.
    const boundedText = `import { cuda } from "cudascript";
export const bounded = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] *= 2;
}, { launchBounds: [192, 2] });
`;
    const boundedUri = uriOf(path.join(dir, "bounded.ts"));
    assert.deepEqual(await client.openAndWait(boundedUri, boundedText), []);
    const md = await client.hoverText(boundedUri, find(boundedText, "const bounded", 8));
    assert.ok(md, "no hover");
    assert.match(md, /\| Launch bounds \| at most 192 threads per block \(launchBounds\); 2 blocks per SM, so the compiler keeps registers ≤ 168 per thread \|/);
    assert.match(md, /\| 128 \| 16 \| ≤ 100% \| warps \|/);
    assert.match(md, /\| 192 \| 10 \| ≤ 93.8% \| warps \|/);
    assert.doesNotMatch(md, /\| (256|512|1024) \|/);
    assert.match(md, /\*\*Suggestion\*\* \(192 threads\): .*use 128 threads per block/);
  });

  it("dynamic shared memory from the launch options", async () => {
    const md = await client.hoverText(uri, find(text, "dyn.launch", 1));
    assert.match(md ?? "", /\| Dynamic shared memory \| 16 KiB \(16384 bytes\) per block \(launch\) \|/);
    assert.match(md ?? "", /\| 128 \| 9 \| ≤ 56\.3% \| shared memory \|/);
  });

  it("dynamic shared memory above 48 KiB: shown as opted in, with the architecture's ceiling", async () => {
    const bigUri = uriOf(path.join(dir, "big-dynamic.ts"));
    const bigText = `import { cuda, f32 } from "cudascript";
export const wide = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(0, f32);
  const t = cuda.threadIdx.x;
  s[t] = t;
  cuda.syncthreads();
  out[cuda.grid(1)] = s[t];
});
export function run(out: Float32Array): void {
  wide.launch(1, 128, { sharedMem: 102400 })(out);
  wide.launch(1, 128, { sharedMem: 204800 })(out);
}
`;
    assert.deepEqual(await client.openAndWait(bigUri, bigText), []);
    const ok = (await client.hoverText(bigUri, find(bigText, "wide.launch", 1))) ?? "";
    assert.match(ok, /\| Dynamic shared memory \| 100 KiB \(102400 bytes\) per block \(launch\); over the default 48 KiB, so the kernel is opted in to more \(up to 163 KiB on sm_80\) \|/);
    // sm_80: roundUp(102400 + 1024, 128) = 103424 per block → 167936 / 103424 = 1 block of 4 warps.
    assert.match(ok, /\| 128 \| 1 \| ≤ 6\.3% \| shared memory \|/);
    const tooMuch = (await client.hoverText(bigUri, find(bigText, "wide.launch(1, 128, { sharedMem: 204800", 1))) ?? "";
    assert.match(tooMuch, /over the 163 KiB on sm_80 a block can have even opted in/);
  });

  it("follows the targetArch setting (workspace/configuration): sm_75", async () => {
    config = { targetArch: "sm_75" };
    const since = client.publishes(uri).length;
    await client.changeConfiguration();
    await client.waitForDiagnostics(uri, () => true, { since });
    const md = await client.hoverText(uri, find(text, "bigTile.launch", 3));
    assert.match(md ?? "", /on sm_75/);
    assert.match(md ?? "", /\| 256 \| 1 \| ≤ 25% \| shared memory \|/);
    config = {};
    const since2 = client.publishes(uri).length;
    await client.changeConfiguration();
    await client.waitForDiagnostics(uri, () => true, { since: since2 });
    assert.match((await client.hoverText(uri, find(text, "bigTile.launch", 3))) ?? "", /on sm_80/);
  });

  it("sm_70 (V100) gets numbers; an architecture outside the table says \"unknown architecture\", never 0 %", async () => {
    const hoverWith = async (targetArch: string) => {
      config = { targetArch };
      const since = client.publishes(uri).length;
      await client.changeConfiguration();
      await client.waitForDiagnostics(uri, () => true, { since });
      return (await client.hoverText(uri, find(text, "bigTile.launch", 3))) ?? "";
    };
    try {
      // sm_70: 96 KiB per SM, nothing reserved, 256-byte granularity: 98304 / 40960 = 2 blocks of 8 warps = 25 %.
      const volta = await hoverWith("sm_70");
      assert.match(volta, /on sm_70/);
      assert.match(volta, /\| 256 \| 2 \| ≤ 25% \| shared memory \|/);
      const unknown = await hoverWith("sm_99");
      assert.match(unknown, /unknown architecture sm_99/);
      assert.match(unknown, /known architectures are sm_35, .*sm_121\. Set `cudascript\.targetArch` to one of them\./);
      assert.doesNotMatch(unknown, /0%/);
    } finally {
      await hoverWith(""); // back to the default for the next tests
      config = {};
    }
  });

  it("a launch whose block size is not constant: the common block sizes", async () => {
    const other = "untitled:variable-block.ts";
    const src = `${OCCUPANCY_FIXTURE}\nexport function runWith(x: Float32Array, out: Float32Array, tpb: number): void {\n  small.launch(64, tpb)(x, out);\n}\n`;
    await client.openAndWait(other, src);
    const md = await client.hoverText(other, find(src, "small.launch(64, tpb)", 3));
    assert.match(md ?? "", /block size not constant/);
    for (const t of [128, 256, 512, 1024]) assert.match(md ?? "", new RegExp(`\\| ${t} \\| \\d+ \\| ≤ 100% \\| warps \\|`));
    await client.close(other);
  });

  it("the occupancy request returns the same numbers as data", async () => {
    const r = await client.request<{ registers: number | null; registersNote?: string; staticSharedBytes: number; rows: { threadsPerBlock: number; activeBlocksPerSM: number; occupancy: number; limitedBy: string[] }[] }>(
      "cudascript/occupancy",
      { uri, kernel: "bigTile" },
    );
    assert.equal(r.registers, null);
    assert.match(r.registersNote ?? "", /CUDASCRIPT_NVRTC=off/);
    assert.equal(r.staticSharedBytes, 40960);
    const row = r.rows.find((x) => x.threadsPerBlock === 256)!;
    assert.deepEqual([row.activeBlocksPerSM, row.occupancy, row.limitedBy], [4, 0.5, ["sharedMemory"]]);
  });

  it("logged no internal error", () => {
    assert.deepEqual(client.internalErrors(), []);
  });
});

describe("API hover docs", () => {
  let client: LspClient;
  const uri = "untitled:api-docs.ts";
  // Every cuda.* member a kernel may use: the intrinsic records' paths (compiler/src/intrinsics/, all of
  // cuda.libdevice included) and the members the front end makes other IR of.
  const kernelApi = [
    "threadIdx.x", "blockIdx.y", "blockDim.z", "gridDim.x", "laneid", "warpsize", "grid", "gridsize", "shared.array", "local.array",
    "const.arrayLike", "atomic.add", "atomic.sub", "atomic.and", "atomic.or", "atomic.xor", "atomic.inc", "atomic.dec",
    "atomic.exch", "atomic.max", "atomic.min", "atomic.nanmax", "atomic.nanmin", "atomic.compareAndSwap", "selp", "jit", "device",
    ...CUDA_INTRINSIC_PATHS,
    ...["xoroshiro128pUniformFloat32", "xoroshiro128pUniformFloat64", "xoroshiro128pNormalFloat32", "xoroshiro128pNormalFloat64"].map((f) => `random.${f}`),
  ];
  const lines = kernelApi.map((api, i) => `  const v${i} = cuda.${api};`);
  const text = ['import { cuda, f32 } from "cudascript";', "export const k = cuda.jit((x: Float32Array) => {", ...lines, "  const m = Math.sqrt(x[0]) + Math.PI + Math.max(1, 2);", "  const y: f32 = 1;", "});", ""].join("\n");

  before(async () => {
    client = await LspClient.start({ env: { CUDASCRIPT_NVRTC: "off" }, initializationOptions: { diagnostics: { debounceMs: 0 } } });
    await client.openAndWait(uri, text); // diagnostics do not matter here (members used as values)
  });
  after(async () => {
    await client.stop();
  });

  for (const api of kernelApi) {
    it(`cuda.${api}: signature, description, Numba equivalent`, async () => {
      const last = api.split(".").pop()!;
      const md = await client.hoverText(uri, find(text, `cuda.${api};`, `cuda.${api}`.length - last.length + 1));
      assert.ok(md, `no hover on cuda.${api}`);
      assert.match(md, new RegExp(`cuda\\.${api.replace(/\./g, "\\.")}`), "signature");
      assert.match(md, /Numba: `[^`]+`/, "Numba equivalent");
      assert.ok(md.split("\n").some((l) => l.length > 20 && !l.startsWith("```") && !l.startsWith("cuda.") && !l.startsWith("Numba")), "description");
    });
  }

  it("hovering the namespace part of a path documents the namespace", async () => {
    const md = await client.hoverText(uri, find(text, "cuda.atomic.add", 6));
    assert.match(md ?? "", /Atomic read-modify-write/);
  });

  it("Math.* inside kernels", async () => {
    assert.match((await client.hoverText(uri, find(text, "Math.sqrt", 6))) ?? "", /Square root[\s\S]*sqrtf/);
    assert.match((await client.hoverText(uri, find(text, "Math.PI", 6))) ?? "", /π/);
    assert.match((await client.hoverText(uri, find(text, "Math.max", 6))) ?? "", /Largest argument/);
  });

  it("dtypes", async () => {
    assert.match((await client.hoverText(uri, find(text, "y: f32", 4))) ?? "", /32-bit float/);
  });

  it("nothing on plain identifiers, whitespace, past the end", async () => {
    assert.equal(await client.hover(uri, find(text, "x[0]", 0)), null);
    assert.equal(await client.hover(uri, { line: 0, character: 0 }), null);
    assert.equal(await client.hover(uri, { line: 9999, character: 5 }), null);
  });

  it("logged no internal error", () => {
    assert.deepEqual(client.internalErrors(), []);
  });
});
