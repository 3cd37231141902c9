/**
 * Numba's `cuda.libdevice`: every function of the libdevice table (libdevice-table.ts, 317 of them) as a
 * record, `cuda.libdevice.<name>` with Numba's names and argument types. On the GPU each is the call of
 * libdevice's `__nv_<name>` (declared `extern "C"`, linked by NVRTC); on the simulator
 * `rt.libdevice.<name>` (runtime/src/simulator/libdevice/), within CUDA's documented accuracy
 * (docs/libdevice.md).
 *
 * A function with several results (Numba's tuple: `sincos`, `frexp`, `modf`, `remquo`, …, whose C
 * function writes through pointers) returns them as an array to destructure,
 * `const [s, c] = cuda.libdevice.sincos(x)`: the front end makes one record per element
 * (`libdevice.sincos[0]`, `libdevice.sincos[1]`), each a pure function of the arguments, evaluated once
 * per element on the simulator and merged by the CUDA compiler on the GPU.
 */
import { call } from "../cuda/precedence";
import { DTYPES } from "../dtypes/table";
import { LIBDEVICE_FUNCTIONS, type LibdeviceAccuracy, type LibdeviceFunction, type LibdeviceType } from "./libdevice-table";
import { param, sig, type CudaCallContext, type IntrinsicRecord } from "./record";

/** The IR name of a libdevice function, or of one element of its tuple result. */
export function libdeviceName(fn: string, element?: number): string {
  return element === undefined ? `libdevice.${fn}` : `libdevice.${fn}[${element}]`;
}

/** The C type of a libdevice value: the dtype table's (Numba's libdevice types are dtype names). */
const cType = (t: LibdeviceType): string => DTYPES[t].cType;

/** The `extern "C"` declaration NVRTC needs (libdevice's functions have no header of their own). */
function declaration(f: LibdeviceFunction): string {
  return `extern "C" __device__ ${f.prototype};`;
}

/** `(x: f64, y: f64): [f64, f64]`: the signature as kernels see it. */
function shownSignature(f: LibdeviceFunction): string {
  const params = f.params.map((p) => `${p.name}: ${p.type}`).join(", ");
  const result = f.results.length === 1 ? f.results[0]! : `[${f.results.join(", ")}]`;
  return `cuda.libdevice.${f.name}(${params}): ${result}`;
}

/** CUDA's documented accuracy in words. */
export function accuracyText(a: LibdeviceAccuracy): string {
  if ("exact" in a) return "exact";
  return a.ranges
    .map((r) => {
      const b = r.bound;
      const bound = "ulp" in b ? `${b.ulp} ulp${b.ulpPerAbsX ? ` + ${b.ulpPerAbsX}·|x|` : ""}` : "absolute" in b ? `absolute error ${b.absolute.toExponential(2)}` : "no bound";
      const where = r.domain ? ` for ${r.abs ? `|${r.param ?? "x"}|` : r.param ?? "x"} in [${r.domain[0]}, ${r.domain[1]}]` : "";
      return bound + where;
    })
    .join("; ");
}

/**
 * The C++ of a function with a tuple result: a helper per element, `cs_ld_<name>_<i>(args)`, calling
 * the libdevice function with temporaries for the pointer outputs and returning element i.
 */
function elementHelper(f: LibdeviceFunction, element: number): string {
  const params = f.params.map((p) => `${cType(p.type)} ${p.name}`).join(", ");
  const returns = !f.prototype.startsWith("void ");
  // The pointer outputs are the results after the return value (if any).
  const outputs = f.results.slice(returns ? 1 : 0);
  const temps = outputs.map((t, i) => `${cType(t)} r${i};`).join(" ");
  const args = [...f.params.map((p) => p.name), ...outputs.map((_, i) => `&r${i}`)].join(", ");
  const invoke = `__nv_${f.name}(${args})`;
  const body = returns && element === 0 ? `${temps} return ${invoke};` : `${temps} ${invoke}; return r${element - (returns ? 1 : 0)};`;
  return `static __device__ __forceinline__ __attribute__((unused)) ${cType(f.results[element]!)} cs_ld_${f.name}_${element}(${params}) { ${body} }`;
}

function record(f: LibdeviceFunction, element?: number): IntrinsicRecord {
  const result = element === undefined ? f.results[0]! : f.results[element]!;
  const tuple = f.results.length > 1;
  return {
    name: libdeviceName(f.name, element),
    paths: element === undefined ? [`cuda.libdevice.${f.name}`] : [],
    numba: `numba.cuda.libdevice.${f.name}(${f.params.map((p) => p.name).join(", ")})`,
    effect: "pure",
    uniformity: "args",
    signatures: tuple && element === undefined ? undefined : [sig(result, ...f.params.map((p) => param(p.name, p.type)))],
    lowering: tuple && element === undefined ? "frontend: a tuple result is destructured, const [a, b] = cuda.libdevice.f(x), one element record each" : undefined,
    doc: {
      signature: shownSignature(f),
      text: `${f.doc[0]!.toUpperCase()}${f.doc.slice(1)}. CUDA's documented accuracy: ${accuracyText(f.accuracy)}.`,
      cuda: `__nv_${f.name}(…)`,
    },
    half: "native",
    // libdevice's implementations compute with explicit fused multiply-adds whatever --fmad says.
    libraryFma: true,
    cuda: (c: CudaCallContext) => {
      c.declare(declaration(f), true);
      if (element === undefined) return call(`__nv_${f.name}`, c.t);
      c.declare(elementHelper(f, element));
      return call(`cs_ld_${f.name}_${element}`, c.t);
    },
    // `$ld` is read once per module: rt loads the library on a module's first use.
    js: (c) => `${c.helper("$ld", "const $ld = rt.libdevice;")}.${f.name}(${c.args.join(", ")})${element === undefined ? "" : `[${element}]`}`,
  };
}

/** The libdevice function of a record's name (`libdevice.sincos[1]` → sincos), if it is one. */
export const LIBDEVICE_BY_NAME: ReadonlyMap<string, LibdeviceFunction> = new Map(LIBDEVICE_FUNCTIONS.map((f) => [f.name, f]));

export const LIBDEVICE_RECORDS: readonly IntrinsicRecord[] = LIBDEVICE_FUNCTIONS.flatMap((f) => [record(f), ...(f.results.length > 1 ? f.results.map((_, i) => record(f, i)) : [])]);
