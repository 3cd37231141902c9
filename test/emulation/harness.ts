/**
 * Runs generated CUDA C++ on the CPU: builds a g++ driver around a file's generated code and
 * cuda_emulation.hpp, encodes a corpus case's buffers and launches, runs it and decodes the buffers.
 */
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { CudaKernel, GeneratedCuda } from "@cudascript/compiler";
import { cType } from "@cudascript/compiler";
import { isFloatData, isTypedData, type CorpusCase, type HostBigIntNDArray, type HostNDArray, type HostTypedArray, type HostValue, type LaunchDim } from "../corpus/case";

/** test/emulation (the header lives beside this file's source, not in dist). */
export const EMULATION_DIR = path.resolve(__dirname, "../../emulation");
export const CORPUS_DIR = path.resolve(__dirname, "../../corpus/valid");
export const CORPUS_DIST_DIR = path.resolve(__dirname, "../corpus/valid");

export function findGxx(): string | undefined {
  const candidates = [process.env.CXX, "g++"].filter((c): c is string => !!c);
  for (const c of candidates) {
    const r = spawnSync(c, ["--version"], { encoding: "utf8" });
    if (!r.error && r.status === 0) return c;
  }
  return undefined;
}

/** C++ driver: includes the header and the generated code, maps kernel indices to launches. */
export function driverSource(gen: GeneratedCuda, cuFile: string): string {
  const cases = gen.kernels.map((k, index) => {
    const decls: string[] = [];
    const args: string[] = [];
    k.params.forEach((p, i) => {
      if (p.kind === "scalar") {
        decls.push(`const ${cType(p.dtype)} a${i} = L.scalar<${cType(p.dtype)}>(${i});`);
        args.push(`a${i}`);
      } else {
        const et = p.dtype === "bool" ? "unsigned char" : cType(p.dtype);
        decls.push(`${et}* const a${i} = L.ptr<${et}>(${i});`);
        args.push(`a${i}`);
        for (let d = 0; d < p.rank; d++) {
          decls.push(`const int a${i}_${d} = L.extent(${i}, ${d});`);
          args.push(`a${i}_${d}`);
        }
        // The element strides, where the ABI has them (N-D parameters: docs/abi.md).
        if (p.rank > 1)
          for (let d = 0; d < p.rank; d++) {
            decls.push(`const int a${i}_s${d} = L.stride(${i}, ${d});`);
            args.push(`a${i}_s${d}`);
          }
      }
    });
    // A kernel that calls g.sync() takes the grid barrier's workspace last and runs every block at once.
    if (k.cooperative) args.push("cs_emu::grid_ws");
    return [
      `    case ${index}: {  // ${k.name}`,
      ...decls.map((d) => `      ${d}`),
      `      cs_emu::${k.cooperative ? "launch_cooperative" : "launch"}(L.grid, L.block, L.shared, [=] { ${k.symbol}(${args.join(", ")}); });`,
      `      break;`,
      `    }`,
    ].join("\n");
  });
  return [
    `#include "cuda_emulation.hpp"`,
    `#include "${path.basename(cuFile)}"`,
    ``,
    `static void cs_dispatch(const cs_emu::Launch& L) {`,
    `  switch (L.kernel) {`,
    ...cases,
    `    default:`,
    `      fprintf(stderr, "unknown kernel %u\\n", L.kernel);`,
    `      exit(3);`,
    `  }`,
    `}`,
    ``,
    `int main(int argc, char** argv) { return cs_emu::run_driver(argc, argv, cs_dispatch); }`,
    ``,
  ].join("\n");
}

const CXXFLAGS = ["-std=c++20", "-O1", "-pthread"];

/**
 * Precompiles cuda_emulation.hpp into `dir` (a copy of the header plus its .gch), which halves each
 * driver's build time; drivers built with `-I dir` pick it up. Returns false if g++ cannot.
 */
export function buildPrecompiledHeader(gxx: string, dir: string): boolean {
  const header = path.join(dir, "cuda_emulation.hpp");
  fs.copyFileSync(path.join(EMULATION_DIR, "cuda_emulation.hpp"), header);
  const r = spawnSync(gxx, [...CXXFLAGS, "-ffp-contract=off", "-x", "c++-header", header, "-o", `${header}.gch`], { encoding: "utf8" });
  return !r.error && r.status === 0;
}

export interface BuildResult {
  ok: boolean;
  binary: string;
  log: string;
  millis: number;
}

/** True when this CPU has fused multiply-add instructions (x86 FMA3), so `-mfma` code can run here. */
export function cpuHasFma(): boolean {
  try {
    return /^flags\s*:.*\bfma\b/m.test(fs.readFileSync("/proc/cpuinfo", "utf8"));
  } catch {
    return false;
  }
}

/**
 * The floating-point contraction the GPU build of `gen` gets, replayed on the CPU: NVRTC runs with
 * `--fmad=false` unless a kernel opts in (`fma` or `fastmath`), so the emulation is built with
 * `-ffp-contract=off`, or, when some kernel of the file opts in, with `-ffp-contract=fast -mfma -O2` (g++
 * then fuses `a * b + c` like NVVM does; a file mixing both kinds of kernel replays all with fusion).
 * `force` overrides the choice. GCC forms FMAs only from -O2 (its widening-multiply pass), hence -O2.
 */
export function contractionFlags(gen: GeneratedCuda, force?: "off" | "fast"): string[] {
  const mode = force ?? (gen.kernels.some((k) => k.options.fma || k.options.fastmath) ? "fast" : "off");
  return mode === "fast" ? ["-ffp-contract=fast", "-mfma", "-O2"] : ["-ffp-contract=off"];
}

/** Compiles `<dir>/<name>.cu` + driver with g++ (asynchronously, so two builds can overlap). */
export function buildDriver(gxx: string, dir: string, name: string, gen: GeneratedCuda, contraction?: "off" | "fast"): Promise<BuildResult> {
  const cu = path.join(dir, `${name}.cu`);
  const driver = path.join(dir, `${name}_driver.cpp`);
  const binary = path.join(dir, `${name}_emulated`);
  fs.writeFileSync(cu, gen.source);
  fs.writeFileSync(driver, driverSource(gen, cu));
  const start = Date.now();
  return new Promise((resolve) => {
    const child = spawn(gxx, [...CXXFLAGS, ...contractionFlags(gen, contraction), "-Wall", "-Wno-unused-variable", "-Wno-unused-but-set-variable", `-I${dir}`, `-I${EMULATION_DIR}`, driver, "-o", binary]);
    let log = "";
    child.stdout.on("data", (d: Buffer) => (log += d.toString()));
    child.stderr.on("data", (d: Buffer) => (log += d.toString()));
    child.on("error", (e) => resolve({ ok: false, binary, log: log + e.message, millis: Date.now() - start }));
    child.on("close", (code) => resolve({ ok: code === 0, binary, log, millis: Date.now() - start }));
  });
}

function isArray(v: HostValue): v is HostTypedArray | HostNDArray | HostBigIntNDArray {
  // A HostBigIntNDArray (u64 state arrays) is an N-D array too: the harness reads only its bytes and shape.
  return typeof v === "object";
}
function dataOf(v: HostTypedArray | HostNDArray | HostBigIntNDArray): HostTypedArray {
  return isTypedData(v) ? v : v.data;
}
function shapeOf(v: HostTypedArray | HostNDArray | HostBigIntNDArray): readonly number[] {
  return isTypedData(v) ? [v.length] : v.shape;
}
/** Element strides: the array's own (a HostNDArray may have any), else C order. */
function stridesOf(v: HostTypedArray | HostNDArray | HostBigIntNDArray): readonly number[] {
  if (!isTypedData(v) && "strides" in v && v.strides) return v.strides;
  const shape = shapeOf(v);
  return shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
}
function dim3(d: LaunchDim): [number, number, number] {
  const a = typeof d === "number" ? [d] : [...d];
  return [a[0] ?? 1, a[1] ?? 1, a[2] ?? 1];
}

export interface EncodedCase {
  input: Buffer;
  /** Buffer names in file order. */
  buffers: string[];
}

/** Encodes one case's buffers and launches; throws when a launch does not match the kernel's ABI. */
export function encodeCase(c: CorpusCase, values: Record<string, HostValue>, kernels: readonly CudaKernel[]): EncodedCase {
  const buffers = Object.keys(values).filter((k) => isArray(values[k]!));
  const parts: Buffer[] = [Buffer.from("CSEM"), u32(buffers.length)];
  for (const name of buffers) {
    const d = dataOf(values[name] as HostTypedArray | HostNDArray);
    parts.push(u64(d.byteLength), Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  }
  parts.push(u32(c.launches.length));
  for (const l of c.launches) {
    const index = kernels.findIndex((k) => k.name === l.kernel);
    if (index < 0) throw new Error(`case '${c.name}' launches '${l.kernel}', which is not a kernel of this file`);
    const k = kernels[index]!;
    if (k.params.length !== l.args.length) throw new Error(`'${l.kernel}' takes ${k.params.length} arguments, the case gives ${l.args.length}`);
    parts.push(u32(index), ...dim3(l.grid).map(u32), ...dim3(l.block).map(u32), u32(l.sharedMem ?? 0), u32(l.args.length));
    l.args.forEach((argName, i) => {
      const v = values[argName];
      const p = k.params[i]!;
      if (v === undefined) throw new Error(`case '${c.name}' has no buffer or scalar named '${argName}'`);
      if (isArray(v)) {
        if (p.kind !== "array") throw new Error(`argument ${argName} of ${l.kernel} should be a scalar`);
        const shape = shapeOf(v);
        if (shape.length !== p.rank) throw new Error(`argument ${argName} of ${l.kernel} has rank ${shape.length}, the kernel expects ${p.rank}`);
        parts.push(u32(1), u32(buffers.indexOf(argName)), u32(shape.length), ...shape.map((n) => i32(n)), ...stridesOf(v).map((n) => i32(n)));
      } else {
        if (p.kind !== "scalar") throw new Error(`argument ${argName} of ${l.kernel} should be an array`);
        const b = Buffer.alloc(8);
        if (typeof v === "bigint") {
          b.writeBigUInt64LE(BigInt.asUintN(64, v));
          parts.push(u32(2), b);
          return;
        }
        b.writeDoubleLE(typeof v === "boolean" ? (v ? 1 : 0) : v);
        parts.push(u32(0), b);
      }
    });
  }
  return { input: Buffer.concat(parts), buffers };
}

/** Decodes the driver's output into typed arrays of the same kinds as the inputs. */
export function decodeOutput(output: Buffer, buffers: readonly string[], values: Record<string, HostValue>): Map<string, HostTypedArray> {
  const result = new Map<string, HostTypedArray>();
  let at = 0;
  for (const name of buffers) {
    const bytes = Number(output.readBigUInt64LE(at));
    at += 8;
    const like = dataOf(values[name] as HostTypedArray | HostNDArray);
    const copy = new Uint8Array(bytes);
    copy.set(output.subarray(at, at + bytes));
    at += bytes;
    const Ctor = like.constructor as new (b: ArrayBuffer) => HostTypedArray;
    result.set(name, new Ctor(copy.buffer));
  }
  return result;
}

/** Undefined when equal; otherwise a description of the first differences. */
export function compareArrays(name: string, expected: HostTypedArray, actual: HostTypedArray, tolerance?: { abs: number; rel: number }): string | undefined {
  if (expected.length !== actual.length) return `${name}: length ${actual.length}, expected ${expected.length}`;
  const isFloat = isFloatData(expected);
  if (expected instanceof BigInt64Array || expected instanceof BigUint64Array) {
    const got = actual as BigInt64Array | BigUint64Array;
    const bad = [...expected.keys()].filter((i) => expected[i] !== got[i]);
    return bad.length ? `${name}: ${bad.length} of ${expected.length} elements differ: ${bad.slice(0, 5).map((i) => `[${i}] = ${got[i]}, expected ${expected[i]}`).join("; ")}` : undefined;
  }
  const bad: string[] = [];
  let count = 0;
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i] as number, a = actual[i] as number;
    let ok: boolean;
    if (!isFloat) ok = e === a;
    else if (Number.isNaN(e)) ok = Number.isNaN(a);
    else if (!tolerance) ok = e === a;
    else ok = Math.abs(a - e) <= tolerance.abs + tolerance.rel * Math.abs(e) || (e === a);
    if (!ok) {
      count++;
      if (bad.length < 5) bad.push(`[${i}] = ${a}, expected ${e}`);
    }
  }
  return count ? `${name}: ${count} of ${expected.length} elements differ: ${bad.join("; ")}` : undefined;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}
function i32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32LE(n | 0);
  return b;
}
function u64(n: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(n));
  return b;
}

export interface EmulatedRun {
  /** The case's buffers after the run, by name. */
  outputs: Map<string, HostTypedArray>;
  /** What the kernels printed (device printf). */
  stdout: string;
}

/**
 * Builds `gen` with g++ in a fresh temporary folder, runs case `c` on `values` (which the run does not
 * change) and returns the buffers and printed text; throws with g++'s or the program's message when
 * either fails. The folder is removed afterwards.
 */
export async function emulateCase(
  gxx: string,
  name: string,
  gen: GeneratedCuda,
  c: CorpusCase,
  values: Record<string, HostValue>,
  options: { contraction?: "off" | "fast"; timeoutMs?: number } = {},
): Promise<EmulatedRun> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `cudascript-${name}-`));
  try {
    const build = await buildDriver(gxx, tmp, name, gen, options.contraction);
    if (!build.ok) throw new Error(`g++ failed to build ${name}:\n${build.log}`);
    const encoded = encodeCase(c, values, gen.kernels);
    const input = path.join(tmp, "in"), output = path.join(tmp, "out");
    fs.writeFileSync(input, encoded.input);
    const run = spawnSync(build.binary, [input, output], { encoding: "utf8", timeout: options.timeoutMs ?? 120_000 });
    if (run.status !== 0) throw new Error(`${name} exited with ${run.status ?? run.signal}${run.error ? ` (${run.error.message})` : ""}:\n${run.stderr}`);
    return { outputs: decodeOutput(fs.readFileSync(output), encoded.buffers, values), stdout: run.stdout };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
