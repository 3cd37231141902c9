/**
 * The host side of `cuda.guvectorize(fn, layout)` (Numba's `@guvectorize([...], "(n),(n)->()", target="cuda")`).
 * The kernel is made at build time by the compiler from the function and its layout
 * (compiler/src/checker/gufuncs.ts, whose module comment describes it); this module binds the core
 * dimensions' sizes, broadcasts the LOOP dimensions (those in front of each argument's core dimensions)
 * by NumPy's rules, moves the arguments to the device and launches that kernel. It reads the layout with
 * the compiler's parser, `@cudascript/compiler/gufunc-layout`, which imports nothing: the front end is
 * never loaded here. Without a build-time artifact the kernel compiles from its source at the first call.
 */
import type * as LayoutParser from "@cudascript/compiler/gufunc-layout";
import type { CoreDims, GufuncLayout } from "@cudascript/compiler/gufunc-layout";
import type { KernelArtifact } from "./backend";
import { dtypes, type DTypeName, type TypedArray } from "./dtypes";
import { CudaScriptError } from "./errors";
import { describeValue, DeviceNDArray, dtypeOfTypedArray, isHostNDArray, NDArray } from "./host/arrays";
import { isForeignCudaArray, viewIfForeign } from "./host/array-interface";
import type { CudaArrayLike } from "./kernel-api";
import { captureCallSite } from "./host/from-source/call-site";
import type { Stream } from "./host/streams";
import { BLOCK, broadcastShapes, checkedShape, cOrderCopy, isOptions, kernelOf, MAX_BLOCKS, pad3, scalarArray, withKernelName, type UfuncArgument } from "./ufunc";

type HostArray = TypedArray | NDArray;

export interface GufuncOptions {
  /** Where the results go: one array for one output, an array of arrays for several (host or device). */
  readonly out?: HostArray | DeviceNDArray | CudaArrayLike | readonly (HostArray | DeviceNDArray | CudaArrayLike)[];
  readonly stream?: Stream;
}

/**
 * `cuda.guvectorize(fn, layout)`: calls `fn` once per loop index. Returns the output (several outputs: an
 * array of them) — a device array when an input is a device array, else a host array (a typed array for
 * a 1-D result, an NDArray for 2-D and 3-D, a number for a single `()` result) — or `out` when given.
 */
export interface Gufunc {
  (...args: (UfuncArgument | GufuncOptions)[]): any;
  /** The name of the kernel it launches (`<name>_guvectorize`). */
  readonly kernelName: string;
}

/** One argument as the kernel takes it: its flattened loop dimensions first, then its core dimensions. */
interface Operand {
  readonly device: DeviceNDArray;
  /** Its loop shape padded to 3 dimensions on the left with 1s. */
  readonly loop: readonly number[];
  /** A copy this call made (a host array, a number, or a C-order copy of an F-order or strided array): freed after the launch. */
  readonly temporary: boolean;
  /** The copy `device` is a view of, when it is one (freeing a view frees nothing). */
  readonly base?: DeviceNDArray;
}

const product = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);
const shapeText = (shape: readonly number[]): string => `[${shape.join(", ")}]`;

export function guvectorize(fn: (...args: any[]) => void, layout: string): Gufunc;
export function guvectorize(fn: Function, layout: string, artifact?: KernelArtifact, kernelName?: string): Gufunc;
export function guvectorize(fn: Function, layoutText: string, artifact?: KernelArtifact, kernelName?: string): Gufunc {
  const kernel = kernelOf("cuda.guvectorize", fn, artifact, kernelName, captureCallSite(guvectorize));
  let layout: GufuncLayout | undefined;
  const call = (...args: unknown[]): unknown => {
    const k = kernel(); // first: a layout the compiler refused is reported there, with its position (CS3008)
    layout ??= readLayout(layoutText);
    const { inputs, outputs } = layout;
    const nin = inputs.length;
    const sig = k.signature;
    if (sig.length !== 2 + 4 * nin + outputs.length)
      throw new CudaScriptError("CSR037", `cuda.guvectorize: the layout "${layoutText}" is not the one kernel ${k.name} was built for: pass the layout string written in the source`);
    const inputDtypes = inputs.map((_, i) => sig[2 + 4 * i]!.dtype as DTypeName);
    const outputDtypes = outputs.map((_, j) => sig[2 + 4 * nin + j]!.dtype as DTypeName);
    const what = `gufunc '${k.name.replace(/_guvectorize$/, "")}' "${parser().formatGufuncLayout(layout)}"`;
    let options: GufuncOptions = {};
    if (args.length === nin + 1 && isOptions(args[nin])) options = args.pop() as GufuncOptions;
    // Another library's arrays (with a __cuda_array_interface__) are device arrays over its memory, as in Numba.
    args = args.map(viewIfForeign);
    const givenOut: unknown = options.out;
    if (Array.isArray(givenOut) ? givenOut.some(isForeignCudaArray) : isForeignCudaArray(givenOut))
      options = { ...options, out: (Array.isArray(givenOut) ? givenOut.map(viewIfForeign) : viewIfForeign(givenOut)) as GufuncOptions["out"] };
    if (args.length !== nin)
      throw new CudaScriptError("CSR037", `${what} takes ${nin} input${nin === 1 ? "" : "s"} (then optionally { out, stream }), but was called with ${args.length} argument${args.length === 1 ? "" : "s"}`);
    const stream = options.stream;

    // Check every argument and bind every core dimension before copying anything.
    const shapes = args.map((a, i) => checkedShape(a, inputDtypes[i]!, `input ${i + 1} of ${what}`));
    const sizes = new Map<string, { size: number; where: string }>();
    const bindCoreDims = (shape: readonly number[], dims: CoreDims, which: string): void => {
      if (shape.length < dims.length)
        throw new CudaScriptError(
          "CSR026",
          `${what}: ${which} has shape ${shapeText(shape)}, but its core dimensions (${dims.join(",")}) need at least ${dims.length} dimension${dims.length === 1 ? "" : "s"}: pass a ${dims.length}-D array (with any loop dimensions in front)`,
        );
      const core = shape.slice(shape.length - dims.length);
      dims.forEach((sym, d) => {
        const bound = sizes.get(sym);
        if (bound === undefined) sizes.set(sym, { size: core[d]!, where: `${which} (shape ${shapeText(shape)})` });
        else if (bound.size !== core[d])
          throw new CudaScriptError(
            "CSR026",
            `${what}: core dimension '${sym}' is ${bound.size} in ${bound.where} but ${core[d]} in ${which} (shape ${shapeText(shape)}): every dimension named ${sym} must have the same size`,
          );
      });
    };
    const loops = shapes.map((s, i) => {
      bindCoreDims(s, inputs[i]!, `input ${i + 1}`);
      return s.slice(0, s.length - inputs[i]!.length);
    });
    const loop = broadcastShapes(loops, `${what}: the loop dimensions (in front of the core dimensions)`);
    const outs = outArrays(options.out, outputs.length, what);
    const outShapes = outputs.map((dims, j) => {
      const which = `output ${j + 1}`;
      const given = outs?.[j];
      const rank = loop.length + dims.length;
      const checked = given === undefined ? undefined : checkedShape(given, outputDtypes[j]!, `'out' ${outputs.length > 1 ? `${j + 1} ` : ""}of ${what}`, true);
      // A single () result goes into a one-element array (arrays have at least one dimension).
      const givenShape = rank === 0 && checked?.length === 1 && checked[0] === 1 ? [] : checked;
      if (rank > 3)
        throw new CudaScriptError("CSR038", `${what}: ${which} would have ${rank} dimensions (loop dimensions ${shapeText(loop)}, then its core dimensions (${dims.join(",")})); CudaScript arrays have 1 to 3: call it on fewer loop dimensions (a loop over the leading rows)`);
      if (givenShape && givenShape.length !== rank)
        throw new CudaScriptError(
          "CSR038",
          `${what}: 'out' ${outputs.length > 1 ? `${j + 1} ` : ""}has shape ${shapeText(givenShape)}, but ${which} has ${rank} dimension${rank === 1 ? "" : "s"}, loop dimensions ${shapeText(loop)} then its core dimensions (${dims.join(",")}): pass an out of ${rank} dimension${rank === 1 ? "" : "s"}`,
        );
      const core = dims.map((sym, d) => {
        const bound = sizes.get(sym);
        if (bound) return bound.size;
        if (givenShape) {
          const size = givenShape[loop.length + d]!;
          sizes.set(sym, { size, where: `'out' (shape ${shapeText(givenShape)})` });
          return size;
        }
        throw new CudaScriptError(
          "CSR027",
          `${what}: ${which}'s core dimension '${sym}' is named by no input, so its size is unknown: pass the output, ${outputs.length > 1 ? "{ out: [ … ] }" : "{ out }"} with ${which} of shape [${[...loop, ...dims.map((s) => sizes.get(s)?.size ?? s)].join(", ")}]`,
        );
      });
      const shape = [...loop, ...core];
      if (givenShape?.some((n, d) => n !== shape[d]))
        throw new CudaScriptError(
          "CSR038",
          `${what}: 'out' ${outputs.length > 1 ? `${j + 1} ` : ""}has shape ${shapeText(givenShape)}, but ${which} has shape ${shapeText(shape)} (loop dimensions ${shapeText(loop)}, then its core dimensions (${dims.join(",")})): pass an out of shape ${shapeText(shape)} (cuda.deviceArray(${shapeText(shape)}, ${outputDtypes[j]}))`,
        );
      return shape;
    });
    const [d0, d1, d2] = pad3(loop);
    const loopSize = product(loop);

    const operands: Operand[] = [];
    const results: DeviceNDArray[] = [];
    const made: DeviceNDArray[] = [];
    try {
      args.forEach((a, i) => operands.push(toOperand(a, inputDtypes[i]!, loops[i]!, shapes[i]!.slice(loops[i]!.length), stream)));
      outputs.forEach((dims, j) => {
        const given = outs?.[j];
        const shape = outShapes[j]!;
        // The kernel writes rows in C order: an F-order or strided device `out` gets a C-order array, copied into it after the launch.
        const inPlace = given instanceof DeviceNDArray && given.isCContiguous();
        const device = inPlace ? given : new DeviceNDArray(shape.length ? shape : [1], dtypes[outputDtypes[j]!]);
        if (!inPlace) made.push(device);
        results.push(device);
      });
      if (loopSize > 0) {
        const launchArgs: unknown[] = [d1, d2];
        for (const op of operands) {
          const [a0, a1, a2] = op.loop;
          // C strides of the operand's loop rows, 0 along a loop dimension it broadcasts.
          launchArgs.push(op.device, a0 === d0 ? a1! * a2! : 0, a1 === d1 ? a2! : 0, a2 === d2 ? 1 : 0);
        }
        // Each output as [loop size, ...core dimensions]; a () output is [loop size, 1], the function's out[0].
        outputs.forEach((dims, j) => launchArgs.push(results[j]!.reshape([loopSize, ...(dims.length ? outShapes[j]!.slice(loop.length) : [1])])));
        k.launch(Math.min(Math.ceil(loopSize / BLOCK), MAX_BLOCKS), BLOCK, { stream })(...launchArgs);
      }
      const pick = <T>(list: T[]): T | T[] => (outputs.length === 1 ? list[0]! : list);
      if (outs !== undefined) {
        outs.forEach((o, j) => {
          if (o === results[j] || loopSize === 0) return;
          if (o instanceof DeviceNDArray) o.copyToDevice(results[j]!, { stream });
          else results[j]!.copyToHost(o as HostArray, { stream });
        });
        stream?.synchronize();
        return options.out;
      }
      // Numba's rule: device arrays when any input is on the device, else host arrays.
      if (args.some((a) => a instanceof DeviceNDArray)) {
        made.length = 0; // handed to the caller
        return pick(results);
      }
      const host = results.map((device, j) => {
        const data = new dtypes[outputDtypes[j]!].arrayType(device.size) as TypedArray;
        if (loopSize > 0) device.copyToHost(data, { stream });
        return { data, shape: outShapes[j]! };
      });
      stream?.synchronize();
      return pick(host.map(({ data, shape }) => (shape.length === 0 ? hostScalar(data, outputDtypes[0]!) : shape.length === 1 ? data : new NDArray(data, shape))));
    } finally {
      if (operands.some((o) => o.temporary) || made.length) stream?.synchronize();
      for (const o of operands) if (o.temporary) (o.base ?? o.device).free();
      for (const d of made) d.free();
    }
  };
  return withKernelName(call, kernel) as unknown as Gufunc;
}

let layoutParser: typeof LayoutParser | undefined;
function parser(): typeof LayoutParser {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (layoutParser ??= require("@cudascript/compiler/gufunc-layout") as typeof LayoutParser);
}

function readLayout(text: unknown): GufuncLayout {
  if (typeof text !== "string")
    throw new CudaScriptError("CSR037", `cuda.guvectorize takes the function and its layout string, e.g. cuda.guvectorize(fn, "(n),(n)->()"), got ${describeValue(text)} for the layout`);
  const { parseGufuncLayout, isLayoutError } = parser();
  const parsed = parseGufuncLayout(text);
  if (isLayoutError(parsed)) throw new CudaScriptError("CSR037", `cuda.guvectorize: bad layout "${text}": ${parsed.message}`);
  return parsed;
}

/** `out` as a list of one array per output. */
function outArrays(out: GufuncOptions["out"], count: number, what: string): readonly unknown[] | undefined {
  if (out === undefined) return undefined;
  if (count === 1) return [out];
  if (!Array.isArray(out) || out.length !== count)
    throw new CudaScriptError("CSR037", `${what} has ${count} outputs: 'out' is an array of ${count} arrays, one per output, got ${describeValue(out)}`);
  return out;
}

/** The value of a single () result (a bool comes back as true/false, as NumPy gives it). */
function hostScalar(data: TypedArray, dtype: DTypeName): number | bigint | boolean {
  const v = (data as unknown as (number | bigint)[])[0]!;
  return dtype === "bool" ? v !== 0 : v;
}

/** The argument on the device with shape [its loop size, ...its core dimensions] (a number: [1]). */
function toOperand(v: unknown, dtype: DTypeName, loop: readonly number[], core: readonly number[], stream: Stream | undefined): Operand {
  const shape = [product(loop), ...core];
  const copy = cOrderCopy(v, dtype, stream);
  if (copy) return { device: copy.reshape(shape), loop: pad3(loop), temporary: true, base: copy };
  if (v instanceof DeviceNDArray) return { device: v.reshape(shape), loop: pad3(loop), temporary: false };
  const host: TypedArray = isHostNDArray(v) ? v.data : dtypeOfTypedArray(v) ? (v as TypedArray) : scalarArray(dtype, v as number | bigint | boolean);
  const device = new DeviceNDArray(shape, dtypes[dtype]);
  if (host.length) device.copyToDevice(host, { stream });
  return { device, loop: pad3(loop), temporary: true };
}
