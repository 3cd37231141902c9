/**
 * Helpers for the GPU backend's tests, which use the libcuda TEST DOUBLE (test/driver-double), not
 * NVIDIA's driver: nothing runs on a GPU, kernels execute nothing, and what the "driver" saw is read
 * from the double's call log.
 *
 * In-process tests make a GpuBackend on the double's driver the current backend (`gpuOnDouble`) and
 * use the public host API (`cuda.toDevice`, `kernel.launch`, streams, events). Backend selection is
 * per process, so selection, the CLI and garbage collection are tested in child processes with
 * `CUDASCRIPT_LIBCUDA=<double>` (`childEnv`).
 */
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { TestContext } from "node:test";
import type { KernelArtifact } from "@cudascript/compiler";
import { driverDoubleOrSkip, type DoubleLogEntry, type DriverDouble } from "../driver-double/test-double";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { GpuBackend } from "cudascript/dist/gpu/backend";
import { setFloat16 } from "cudascript/dist/float16";
import { setBackend } from "cudascript/dist/host/device";
import { compileSource, kernel, REPO, type TestKernel } from "../simulator/helpers";

export { REPO, compileSource, kernel, type TestKernel };

export const CLI = path.join(REPO, "runtime", "dist", "cli", "main.js");

export interface GpuOnDouble {
  readonly double: DriverDouble;
  readonly backend: GpuBackend;
}

/**
 * The libcuda TEST DOUBLE (reset) and a GpuBackend on it as the current backend; undefined after
 * skipping the test (no gcc, or — with `needsNvrtc` — no NVRTC to compile kernels).
 */
export function gpuOnDouble(t: TestContext, options: { needsNvrtc?: boolean } = {}): GpuOnDouble | undefined {
  const double = driverDoubleOrSkip(t);
  if (!double) return undefined;
  if (options.needsNvrtc !== false && !nvrtcOrSkip(t)) return undefined;
  const backend = new GpuBackend({ driver: double.driver, cache: false });
  setBackend(backend);
  return { double, backend };
}

/** `0x…` as the double logs pointers and handles. */
export { hex } from "../driver-double/test-double";

/** Little-endian bytes of a value of a C type, as hex. */
export function leHex(cType: string, value: number | bigint | boolean): string {
  const b = Buffer.alloc(8);
  switch (cType) {
    case "float":
      b.writeFloatLE(value as number);
      return b.subarray(0, 4).toString("hex");
    case "double":
      b.writeDoubleLE(value as number);
      return b.subarray(0, 8).toString("hex");
    case "int":
      b.writeInt32LE(value as number);
      return b.subarray(0, 4).toString("hex");
    case "unsigned":
      b.writeUInt32LE(value as number);
      return b.subarray(0, 4).toString("hex");
    case "short":
      b.writeInt16LE(value as number);
      return b.subarray(0, 2).toString("hex");
    case "unsigned short":
      b.writeUInt16LE(value as number);
      return b.subarray(0, 2).toString("hex");
    case "signed char":
      b.writeInt8(value as number);
      return b.subarray(0, 1).toString("hex");
    case "unsigned char":
      b.writeUInt8(value as number);
      return b.subarray(0, 1).toString("hex");
    case "bool":
      return value ? "01" : "00";
    case "long long":
      b.writeBigInt64LE(BigInt(value as number | bigint));
      return b.toString("hex");
    case "unsigned long long":
      b.writeBigUInt64LE(BigInt(value as number | bigint));
      return b.toString("hex");
    case "cs_half": {
      const v = new DataView(new ArrayBuffer(2));
      setFloat16(v, 0, value as number, true);
      return Buffer.from(v.buffer).toString("hex");
    }
    case "pointer":
      b.writeBigUInt64LE(value as bigint);
      return b.toString("hex");
    default:
      throw new Error(`no C type ${cType}`);
  }
}

/** The log entries after `seq`. */
export function since(log: readonly DoubleLogEntry[], seq: number): DoubleLogEntry[] {
  return log.filter((e) => e.seq > seq);
}

/** The double's library, built (or skipped) for child-process tests. */
export function doublePathOrSkip(t: TestContext): string | undefined {
  return driverDoubleOrSkip(t)?.path;
}

/** Environment for a child process that must load the double as libcuda. */
export function childEnv(doublePath: string | undefined, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("CUDASCRIPT_DOUBLE_")) delete env[k];
  delete env.CUDASCRIPT_BACKEND;
  delete env.CUDASCRIPT_RUN;
  if (doublePath) env.CUDASCRIPT_LIBCUDA = doublePath;
  else delete env.CUDASCRIPT_LIBCUDA;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface ChildResult {
  readonly code: number | null;
  /** The signal that killed the child (e.g. "SIGSEGV"), if one did. */
  readonly signal: NodeJS.Signals | null;
  readonly out: string;
  readonly err: string;
  readonly all: string;
}

export function runNode(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): ChildResult {
  const r: SpawnSyncReturns<string> = spawnSync(process.execPath, args, { cwd: REPO, encoding: "utf8", env, timeout: timeoutMs });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr, all: `${r.stdout}\n${r.stderr}` };
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): ChildResult {
  return runNode([CLI, ...args], env, timeoutMs);
}

/** A fresh file for the double's log (CUDASCRIPT_DOUBLE_LOG) and a reader for it. */
export function logFile(): { readonly file: string; read(): DoubleLogEntry[]; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-gpu-test-"));
  const file = path.join(dir, "calls.jsonl");
  return {
    file,
    read: () =>
      fs.existsSync(file)
        ? fs
            .readFileSync(file, "utf8")
            .split("\n")
            .filter((l) => l.trim())
            .map((l) => JSON.parse(l) as DoubleLogEntry)
        : [],
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** A kernel source with every parameter kind of the ABI. */
export const KINDS_KERNELS = `
import { cuda, f32, f64, f16, i32, u32, i16, u16, i8, u8, i64, u64, bool, Array2D, Array3D, Float16Array } from "cudascript";

export const scalars64 = cuda.jit((a: i64, b: u64, x: BigInt64Array, out: BigUint64Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = BigInt.asUintN(64, a + x[i]) ^ b;
});

export const scalars = cuda.jit((a: f32, b: f64, c: i32, d: u32, e: i16, f: u16, g: i8, h: u8, k: bool, out: Float64Array) => {
  if (cuda.grid(1) === 0) out[0] = a + b + c + d + e + f + g + h + (k ? 1 : 0);
});

export const arrays1d = cuda.jit((x: Float32Array, y: Float64Array, n: Int32Array, u: Uint32Array, s: Int16Array, us: Uint16Array, b: Int8Array, ub: Uint8Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = y[i] + n[i] + u[i] + s[i] + us[i] + b[i] + ub[i];
});

export const ndarrays = cuda.jit((m: Array2D<f32>, v: Array3D<i32>, scale: f32, flags: Uint8Array) => {
  const [c, r] = cuda.grid(2);
  if (r < m.shape[0] && c < m.shape[1] && flags[0] !== 0) m[r][c] = scale * v[0][r % v.shape[1]][c % v.shape[2]];
});

export const boolArray = cuda.jit((mask: Uint8Array, out: Int32Array, threshold: i32, on: bool) => {
  const i = cuda.grid(1);
  if (i < out.length && on) out[i] = mask[i] !== 0 ? threshold : 0;
});

export const halves = cuda.jit((a: f16, x: Float16Array, m: Array2D<f16>, out: Float16Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = a * x[i] + m[0][i % m.shape[1]];
});

export const dynamicShared = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(0, f32);
  const t = cuda.threadIdx.x;
  s[t] = t;
  cuda.syncthreads();
  out[cuda.grid(1)] = s[t];
});
`;

let kinds: KernelArtifact | undefined;
/** KINDS_KERNELS compiled (once per process). */
export function kindsArtifact(): KernelArtifact {
  return (kinds ??= compileSource(KINDS_KERNELS));
}
