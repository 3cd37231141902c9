/**
 * Every valid corpus kernel with inputs on the debugger's stepping backend, every block stepped (no
 * block handed to the fast simulator), against the fast simulator on the same inputs: every buffer
 * (inputs included) must be the same, bit for bit. Documented exceptions (docs/debugging.md): kernels
 * that call g.sync() (cooperative launches), which the stepping backend refuses with CSD012.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it, after } from "node:test";
import { Complex128Array, Complex64Array, configureSimulator, cuda } from "cudascript";
import { DebugSession } from "cudascript/dist/debugger/index";
import type { ArgDesc } from "cudascript/dist/simulator/executor";
import { f16round } from "cudascript/dist/float16";
import { KernelChecker, makeArtifact, type ParamSignature } from "@cudascript/compiler";
import { isComplexArray, isTypedData, type CorpusCase, type HostNDArray, type HostValue, type LaunchDim } from "../corpus/case";
import { kernel, REPO } from "../simulator/helpers";

const VALID = path.join(REPO, "test", "corpus", "valid");
const files = fs.readdirSync(VALID).filter((f) => f.endsWith(".ts") && !f.endsWith(".ref.ts")).sort();
/** Cooperative kernels (g.sync()): the stepping backend runs one block at a time. */
const COOPERATIVE = /\.sync\(\)/;

type Device = { buffer: { memory: ArrayBufferLike }; byteOffset: number; shape: readonly number[]; strides: readonly number[]; dtype: { bytes: number }; copyToHost(): unknown };

function toDevice(v: HostValue): unknown {
  if (typeof v === "number" || typeof v === "boolean" || typeof v === "bigint") return v;
  if (isComplexArray(v)) return cuda.toDevice(v.complex === "c64" ? Complex64Array.wrap(v.data as Float32Array) : Complex128Array.wrap(v.data as Float64Array));
  if (isTypedData(v)) return cuda.toDevice(v);
  const nd = v as HostNDArray;
  return cuda.toDevice(cuda.ndarray(nd.data, nd.shape));
}

/** A kernel argument as the simulator's executor gets it (what the public launch makes of it). */
function argDesc(v: unknown, p: ParamSignature): ArgDesc {
  if (p.kind === "scalar") {
    const value = p.dtype === "bool" ? v === true || v === 1 : p.dtype === "f32" ? Math.fround(v as number) : p.dtype === "f16" ? f16round(v as number) : (v as number | bigint);
    return { kind: "scalar", value };
  }
  const d = v as Device;
  return { kind: "array", buffer: d.buffer.memory, byteOffset: d.byteOffset, length: d.shape.reduce((a, b) => a * b, 1), dtype: p.dtype, shape: d.shape, strides: d.strides.map((s) => s / d.dtype.bytes) };
}

const dim3 = (d: LaunchDim): [number, number, number] => {
  const a = typeof d === "number" ? [d] : [...d];
  return [a[0] ?? 1, a[1] ?? 1, a[2] ?? 1];
};

function bytesOf(d: Device): Uint8Array {
  const h = d.copyToHost() as { buffer?: ArrayBufferLike; byteOffset?: number; byteLength?: number; data?: ArrayBufferView };
  const view = (ArrayBuffer.isView(h) ? h : (h.data ?? h)) as ArrayBufferView;
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

after(() => configureSimulator({ workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));

describe("valid corpus on the stepping backend: the fast simulator's results, bit for bit", () => {
  const checker = new KernelChecker();
  for (const f of files) {
    const text = fs.readFileSync(path.join(VALID, f), "utf8");
    it(f, { skip: COOPERATIVE.test(text) ? "cooperative kernel (g.sync()): not supported by the stepping backend (CSD012)" : false }, () => {
      configureSimulator({ workers: 1, inProcessThreshold: 1 << 30, mainThreadExecutes: true });
      const r = checker.checkFile(path.join(VALID, f));
      assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error"), []);
      const artifact = makeArtifact(r.module, { staticSharedBytes: r.staticSharedBytes });
      const { cases } = require(path.join(REPO, "test", "dist", "corpus", "valid", f.replace(/\.ts$/, ".ref.js"))) as { cases: CorpusCase[] };
      for (const c of cases) {
        const fast: Record<string, unknown> = {};
        const stepped: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(c.setup())) fast[k] = toDevice(v);
        for (const [k, v] of Object.entries(c.setup())) stepped[k] = toDevice(v);
        for (const l of c.launches) {
          kernel(artifact, l.kernel).launch(l.grid, l.block, { sharedMem: l.sharedMem })(...l.args.map((a) => fast[a]));
          const sig = artifact.kernels[l.kernel]!.signature;
          const args = l.args.map((a, i) => argDesc(stepped[a], sig[i]!));
          const s = new DebugSession({ module: r.module, kernel: l.kernel, grid: dim3(l.grid), block: dim3(l.block), sharedMem: l.sharedMem, args }, { fastBlocks: false, print: () => {} });
          const end = s.continue();
          assert.equal(end.kind, "end", `${c.name}: the launch of ${l.kernel} stopped: ${JSON.stringify(end)}`);
          if (end.kind === "end" && end.error) throw end.error;
        }
        for (const k of Object.keys(fast)) {
          if (typeof fast[k] !== "object") continue;
          assert.deepEqual(bytesOf(stepped[k] as Device), bytesOf(fast[k] as Device), `${c.name}: buffer ${k}`);
        }
      }
    });
  }
});
