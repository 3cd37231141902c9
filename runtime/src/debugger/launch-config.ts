/**
 * The debug adapter's one-kernel launch configuration (`grid`, `block`, `sharedMem`, `args`) checked
 * and turned into the launch a DebugSession runs. It comes from a JSON file anyone can write, so
 * nothing in it is trusted: every value goes through the host API's own checks, as if the program had
 * written `k.launch(grid, block, { sharedMem })(…args)` with arrays made by `cuda.deviceArray` — the
 * launch limits (CSR007–CSR009), the arguments against the kernel's parameters (CSR003–CSR006,
 * CSR012), shapes (CSR013) and the simulator's memory budget (CSR016, CUDASCRIPT_SIM_MEMORY) — on a
 * simulator whose `launch` only keeps what the checks let through. What the host API cannot see (the
 * JSON's own shape: `zeros` / `range` / `data`, their counts and values) is checked here. Any of it is
 * CSD014 with the rule's message.
 */
import { makeArtifact, type IrModule } from "@cudascript/compiler";
import type { DebugProtocol } from "@vscode/debugprotocol";
import type { KernelArg, LaunchConfig, ModuleHandle } from "../backend";
import type { LaunchDim } from "../kernel-api";
import { CudaScriptError } from "../errors";
import { dtypes, type DTypeName } from "../dtypes";
import type { ArgDesc } from "../simulator/executor";
import { SimBuffer, SimulatorBackend } from "../simulator/backend";
import { useBackend } from "../host/device";
import { deviceArray, describeValue, normalizeShape, toDType, type DeviceNDArray } from "../host/arrays";
import { numberRange } from "@cudascript/compiler/dtypes";
import { CompiledKernel } from "../host/kernel";
import type { DebugLaunch } from "./session-types";
import { checkKernelName } from "./session";

/** A kernel argument of the launch configuration: a scalar, or an array filled with zeros, 0, 1, 2, … or the given values. */
export type LaunchArgument = number | boolean | { readonly dtype: string; readonly data?: readonly number[]; readonly zeros?: number; readonly range?: number; readonly shape?: readonly number[] };

export interface KernelLaunchArguments extends DebugProtocol.LaunchRequestArguments {
  readonly program: string;
  readonly kernel: string;
  readonly grid: number | readonly number[];
  readonly block: number | readonly number[];
  readonly sharedMem?: number;
  readonly args: readonly LaunchArgument[];
  readonly stopOnEntry?: boolean;
  readonly breakOnFault?: boolean;
  /** Seconds a command may run without a stop before the debugger pauses it (default 30). */
  readonly timeLimit?: number;
  /** Replay to a fault: run the launch, and if it faults debug it again stopped at the fault (docs/debugging.md). */
  readonly onFault?: unknown;
  readonly sanitize?: boolean;
  readonly uninitializedShared?: "warn" | "error";
}

/** The dtypes an array argument can be filled (`range`, `data`) in: numbers stored as they are. */
const FILLABLE: readonly DTypeName[] = ["f32", "f64", "i8", "u8", "i16", "u16", "i32", "u32"];
const ARRAY_KEYS = new Set(["dtype", "zeros", "range", "data", "shape"]);
const FILLS = ["zeros", "range", "data"] as const;

export function launchError(message: string): CudaScriptError {
  return new CudaScriptError("CSD014", `launch configuration: ${message}`);
}

/** A simulator whose launch keeps the checked configuration and arguments instead of running them. */
class LaunchCapture extends SimulatorBackend {
  captured: { config: LaunchConfig; args: ArgDesc[] } | undefined;
  constructor() {
    super("simulator (debugging)");
  }
  override launch(_module: ModuleHandle, _kernel: string, config: LaunchConfig, args: readonly KernelArg[]): void {
    this.captured = { config, args: this.argDescs(args) };
  }
}

/** The launch a DebugSession runs for a one-kernel configuration, every value checked (CSD014, CSD010). */
export function kernelLaunch(module: IrModule, staticSharedBytes: ReadonlyMap<string, number>, config: KernelLaunchArguments): Omit<DebugLaunch, "module"> {
  if (typeof config.kernel !== "string") throw launchError(`"kernel" is the name of a kernel of the program, got ${describeValue(config.kernel)}`);
  checkKernelName(module, config.kernel);
  if (!Array.isArray(config.args)) throw launchError(`"args" is a list with one value per kernel parameter, got ${describeValue(config.args)}`);
  const capture = new LaunchCapture();
  const previous = useBackend(capture);
  try {
    const kernel = new CompiledKernel(makeArtifact(module, { staticSharedBytes, includeIr: false }), config.kernel, {});
    const values = config.args.map((a, i) => argumentValue(a, i, kernel.signature[i]?.dtype));
    kernel.launch(config.grid as LaunchDim, config.block as LaunchDim, config.sharedMem === undefined ? undefined : { sharedMem: config.sharedMem })(...values);
  } catch (e) {
    if (!(e instanceof CudaScriptError) || e.code === "CSD014") throw e;
    throw launchError(e.message);
  } finally {
    useBackend(previous);
  }
  const { config: c, args } = capture.captured!;
  return { kernel: config.kernel, grid: c.grid, block: c.block, sharedMem: c.sharedMem, args };
}

/** Argument `i` as the program would pass it: a number, or a device array (allocated within the simulator's budget). */
function argumentValue(a: LaunchArgument, i: number, paramDtype: string | undefined): unknown {
  const at = `args[${i}]`;
  // JSON has no bigints: a whole number for an i64/u64 parameter is one (the host API checks its range).
  if (typeof a === "number" && (paramDtype === "i64" || paramDtype === "u64") && Number.isSafeInteger(a)) return BigInt(a);
  if (typeof a === "number" || typeof a === "boolean") return a;
  if (!a || typeof a !== "object" || Array.isArray(a))
    throw launchError(`${at}: write a number, or an array { "dtype": "f32", "zeros": n | "range": n | "data": [...], "shape"?: [rows, cols] }, got ${JSON.stringify(a)}`);
  const unknown = Object.keys(a).filter((k) => !ARRAY_KEYS.has(k));
  if (unknown.length) throw launchError(`${at}: ${unknown.map((k) => JSON.stringify(k)).join(", ")} is not a field of an array argument; its fields are "dtype", "zeros" | "range" | "data" and "shape"`);
  const given = FILLS.filter((k) => a[k] !== undefined);
  if (given.length !== 1) throw launchError(`${at}: give one of "zeros", "range" or "data"${given.length ? `, not ${given.map((k) => JSON.stringify(k)).join(" and ")}` : ""}`);
  const fill = given[0]!;
  const dtype = hostCheck(at, () => toDType(a.dtype as DTypeName, `"dtype"`));
  if (fill !== "zeros" && !FILLABLE.includes(dtype.name as DTypeName))
    throw launchError(`${at}: "${fill}" fills ${FILLABLE.join(", ")} arrays; a ${dtype.name} array is given as "zeros" here (or made by a host program)`);
  let count: number;
  if (fill === "data") {
    if (!Array.isArray(a.data)) throw launchError(`${at}: "data" is a list of numbers, got ${describeValue(a.data)}`);
    count = a.data.length;
  } else {
    count = a[fill]!;
    if (typeof count !== "number" || !Number.isSafeInteger(count) || count < 0) throw launchError(`${at}: "${fill}" is an element count, a whole number ≥ 0, got ${JSON.stringify(count)}`);
  }
  const shape = a.shape === undefined ? [count] : hostCheck(at, () => normalizeShape(a.shape!, `"shape"`));
  const size = shape.reduce((p, q) => p * q, 1);
  if (size !== count) throw launchError(`${at}: shape [${shape.join(", ")}] holds ${size} elements, not ${count}`);
  const range = numberRange(dtype.name as DTypeName);
  if (fill === "data") a.data!.forEach((v, k) => checkElement(at, k, v, dtype.name, range));
  if (fill === "range" && range && count > 0 && count - 1 > range[1]) throw launchError(`${at}: "range": ${count} counts to ${count - 1}, over the largest ${dtype.name} (${range[1]}): use a wider dtype`);
  // Allocated (and zeroed) by the simulator, which refuses what its memory budget cannot hold; filled in place.
  const d = hostCheck(at, () => deviceArray(shape, dtype)) as DeviceNDArray;
  if (fill !== "zeros") {
    const view = new dtypes[dtype.name as DTypeName].arrayType((d.buffer as SimBuffer).memory, 0, count) as unknown as { [k: number]: number };
    if (fill === "range") for (let k = 0; k < count; k++) view[k] = k;
    else a.data!.forEach((v, k) => (view[k] = v));
  }
  return d;
}

/** A `data` element: a number the dtype holds. */
function checkElement(at: string, k: number, v: unknown, dtype: string, range: readonly [number, number] | undefined): void {
  if (typeof v !== "number") throw launchError(`${at}: data[${k}] is ${JSON.stringify(v) ?? describeValue(v)}, not a number`);
  if (range && (!Number.isInteger(v) || v < range[0] || v > range[1])) throw launchError(`${at}: data[${k}] = ${v} does not fit ${dtype} (whole numbers from ${range[0]} to ${range[1]})`);
}

/** A host API check for argument `at`: its coded error, said as the configuration's. */
function hostCheck<T>(at: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof CudaScriptError) throw launchError(`${at}: ${e.message}`);
    throw e;
  }
}
