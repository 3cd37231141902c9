import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { checkSources } from "../../../test/dist/support/check-sources";
import type { IrModule } from "../ir/nodes";
import { GPU_FEATURES, kernelUses, type GpuFeature } from "./kernel-uses";

function moduleOf(source: string): IrModule {
  const r = checkSources({ "k.ts": `import { cuda, f16, f32, i32, u32, Float16Array, Array2D, type Xoroshiro128pStates } from "cudascript";\n${source}` });
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code} ${d.message}`), []);
  return r.module;
}

const usesOf = (m: IrModule, name: string) => kernelUses(m, m.kernels.find((k) => k.name === name)!);
const features = (m: IrModule, name: string) => usesOf(m, name).features.map((f) => `${f.feature}@${f.span.line - 1}`);

test("kernelUses finds each feature with a minimum compute capability at its first use, through device functions too", () => {
  const m = moduleOf(`export const plain = cuda.jit((x: Float32Array, h: Float16Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = (h[i] / h[0]) % Math.sqrt(h[i]);
});
export const halves = cuda.jit((h: Float16Array) => {
  const i = cuda.grid(1);
  if (i < h.length) h[i] = h[i] * h[i];
});
export const compares = cuda.jit((h: Float16Array, out: Int32Array) => {
  if (h[0] < h[1]) out[0] = 1;
});
export const atomics = cuda.jit((h: Float16Array) => {
  cuda.atomic.add(h, 0, h[1]);
});
const matchOf = cuda.device((v: u32): u32 => cuda.matchAnySync(0xffffffff, v));
export const matches = cuda.jit((out: Uint32Array) => {
  out[cuda.grid(1)] = matchOf(out[0]);
});
`);
  assert.deepEqual(features(m, "plain"), [], "loads, stores, conversions, / and Math.sqrt of halves compute in f32");
  assert.deepEqual(features(m, "halves"), ["f16Arithmetic@7"]);
  assert.deepEqual(features(m, "compares"), ["f16Arithmetic@10"]);
  assert.deepEqual(features(m, "atomics"), ["f16Atomic@13"]);
  assert.deepEqual(features(m, "matches"), ["warpMatch@15"], "found in the device function the kernel calls");
});

test("kernelUses lists the parameters a kernel draws random numbers from, through device functions too", () => {
  const m = moduleOf(`const draw = cuda.device((s: Xoroshiro128pStates, i: i32): f32 => cuda.random.xoroshiro128pUniformFloat32(s, i));
export const noise = cuda.jit((out: Float32Array, states: Xoroshiro128pStates, other: Xoroshiro128pStates) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = draw(other, i) + cuda.random.xoroshiro128pNormalFloat32(states, i);
});
`);
  assert.deepEqual(
    usesOf(m, "noise").randomStates.map((s) => [s.param, s.name, s.draw]),
    [
      [1, "states", "xoroshiro128pNormalFloat32"],
      [2, "other", "xoroshiro128pUniformFloat32"],
    ],
  );
});

test("docs/gpu.md's table gives the minimum compute capability of every feature in GPU_FEATURES", () => {
  const doc = fs.readFileSync(path.resolve(__dirname, "../../../docs/gpu.md"), "utf8");
  for (const [feature, info] of Object.entries(GPU_FEATURES) as [GpuFeature, (typeof GPU_FEATURES)[GpuFeature]][]) {
    const cc = `${Math.floor(info.minComputeCapability / 10)}.${info.minComputeCapability % 10}`;
    assert.ok(doc.includes(`| ${info.name} | ${cc} (sm_${info.minComputeCapability}) |`), `docs/gpu.md has no row "| ${info.name} | ${cc} (sm_${info.minComputeCapability}) |" for ${feature}`);
  }
});
