/**
 * Ufuncs and reductions (Numba's `@vectorize(target="cuda")` and `@cuda.reduce`): the kernel that
 * `cuda.vectorize(fn)` / `cuda.reduce(fn)` launches is made here, at build time, from the scalar function.
 *
 * The kernel is written in CudaScript itself (a template filled in with the scalar function's dtypes) and
 * lowered by the same front end as a user's kernel, so every backend (simulator, CUDA C++, the g++
 * emulation) compiles it like any other. One kernel per ufunc serves every shape: it takes the output's
 * shape and each input's broadcast strides as scalar parameters (runtime/src/ufunc.ts computes them).
 *
 * The scalar function's TypeScript annotations are its signature (Numba asks for explicit signatures):
 * its parameters must be scalars (CS1026) and its result, when not written, is inferred from its returns as
 * TypeScript infers it (CS1026 only where that is ambiguous); `cuda.reduce`'s function combines two
 * values of one type into one of that type (CS2031).
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import type { IrFunction, Span } from "../ir/nodes";
import { ALL_DTYPES, type DType } from "../ir/types";
import { lowerFunction, type LowerHost } from "../frontend/lower";
import { readModuleInfo, type CudaScriptExport, type FunctionDecl, type ModuleInfo, type UfuncDecl } from "../frontend/module-info";

/** Threads per block of the reduction kernel (its shared-memory tree has one slot per thread). */
export const REDUCE_BLOCK = 256;

/** The kernel's name in the artifact: the runtime's `cuda.vectorize(fn, artifact, name)` looks it up. */
export function ufuncKernelName(u: Pick<UfuncDecl, "kind" | "name">): string {
  return `${u.name}_${u.kind}`;
}

export interface UfuncHost extends LowerHost {
  /** The scalar function lowered (with its own diagnostics), or undefined when it could not be. */
  lowerScalar(module: ModuleInfo, decl: FunctionDecl): { fn: IrFunction; diagnostics: readonly Diagnostic[] } | undefined;
}

export interface UfuncResult {
  readonly kernel?: IrFunction;
  readonly diagnostics: Diagnostic[];
}

/** The function a ufunc takes, lowered, with what places its diagnostics. */
export interface UfuncFunction {
  readonly decl: FunctionDecl;
  readonly fnNode: NonNullable<FunctionDecl["fn"]>;
  readonly lowered: IrFunction;
  /** A span in the function's file (it may be imported). */
  readonly declSpan: (node: ts.Node) => Span;
  /** A diagnostic of the function's file moved to the ufunc's argument (this file's check shows only its own spans). */
  readonly here: (d: Diagnostic) => Diagnostic;
}

export function spanIn(module: ModuleInfo, node: ts.Node): Span {
  const sf = module.sourceFile;
  const start = node.getStart(sf);
  const lc = sf.getLineAndCharacterOfPosition(start);
  return { file: module.file, start, end: node.end, line: lc.line + 1, col: lc.character + 1 };
}

/**
 * Finds and lowers the function `u` takes (its first argument), or says why it cannot (CS1025);
 * `example` is a function that would do, for the messages.
 */
export function resolveUfuncFunction(host: UfuncHost, module: ModuleInfo, u: UfuncDecl, example: string): UfuncFunction | UfuncResult {
  const spanOf = (node: ts.Node): Span => spanIn(module, node);
  const what = `cuda.${u.kind}`;
  const argument = u.call.arguments[0] ?? u.call;
  const fail = (node: ts.Node, message: string): UfuncResult => ({ diagnostics: [makeDiagnostic(Codes.UfuncNotAFunction, spanOf(node), message)] });
  const inline = `${what}(${example}${u.kind === "guvectorize" ? ", layout" : ""})`;
  const kind = u.kind === "guvectorize" ? "" : "scalar ";
  if (u.scalar === undefined)
    return fail(argument, `${what} takes the ${kind}function itself: an inline function such as ${inline}, the name of a cuda.device function, or the name of a function declaration of this file`);
  const sym = host.front.resolveName(module, u.scalar);
  if (sym?.kind !== "function" || sym.fn.kind !== "device") {
    const why = sym?.kind === "function" ? `'${u.scalar}' is a kernel` : sym ? `'${u.scalar}' is not a function CudaScript compiles` : `'${u.scalar}' is not declared at module level`;
    return fail(argument, `${what} needs a ${kind}function it can compile for the device, and ${why}: pass ${inline}, a cuda.device function, or a function declaration of this file`);
  }
  const decl = sym.fn;
  const fnNode = decl.fn;
  if (!fnNode) return { diagnostics: [] }; // `cuda.device(notAFunction)`: CS1019 at the device function
  const lowered = host.lowerScalar(sym.module, decl);
  if (!lowered || lowered.diagnostics.some((d) => d.severity === "error")) return { diagnostics: [] }; // reported at the function
  const declSpan = (node: ts.Node): Span => spanIn(sym.module, node);
  const here = (d: Diagnostic): Diagnostic => (d.span.file === module.file ? d : { ...d, span: spanOf(argument) });
  return { decl, fnNode, lowered: lowered.fn, declSpan, here };
}

/** Checks `u`'s scalar function and makes its kernel. */
export function synthesizeUfunc(host: UfuncHost, module: ModuleInfo, u: UfuncDecl): UfuncResult {
  const what = `cuda.${u.kind}`;
  const example = "(a: f32, b: f32): f32 => a + b";
  if (u.call.arguments.length !== 1)
    return { diagnostics: [makeDiagnostic(Codes.UfuncNotAFunction, spanIn(module, u.call), `${what} takes one argument, the scalar function: write ${what}(${example})`)] };
  const found = resolveUfuncFunction(host, module, u, example);
  if ("diagnostics" in found) return found;
  const { decl, fnNode, declSpan, here, lowered: scalarFn } = found;

  // The annotations are the signature: check them where they are written (the scalar function may be in another file).
  const problems: Diagnostic[] = [];
  const params = scalarFn.params;
  params.forEach((p, i) => {
    if (p.type.kind === "scalar") return;
    const node = fnNode.parameters[i] ?? fnNode;
    problems.push(
      makeDiagnostic(
        Codes.UfuncSignature,
        declSpan(node),
        `the function of ${what} '${u.name}' takes scalars, one element of each input, but '${p.name}' is an array: write ${p.name}: ${p.type.kind === "array" ? p.type.dtype : "f32"} (${what} applies the function to each element${u.kind === "vectorize" ? "; write a cuda.jit kernel for a function of whole arrays" : ""})`,
      ),
    );
  });
  // An unwritten result type is inferred from the returns (lower.ts; CS1026 there when ambiguous).
  if (scalarFn.returnType.kind !== "scalar")
    problems.push(makeDiagnostic(Codes.UfuncSignature, declSpan(fnNode.type ?? fnNode), `the function of ${what} '${u.name}' must return a value (a scalar such as f32): it computes each element of the result`));
  // The host side (runtime/src/ufunc.ts) moves real and bool arrays; complex arrays are not wired there.
  const complexAt = [...params.map((p) => p.type), scalarFn.returnType].some((t) => (t.kind === "scalar" || t.kind === "array") && (t.dtype === "c64" || t.dtype === "c128"));
  if (complexAt)
    problems.push(makeDiagnostic(Codes.UfuncSignature, declSpan(fnNode), `${what} does not take complex numbers (c64/c128) yet: write a cuda.jit kernel over Array1D<c64> with one thread per element (const i = cuda.grid(1))`));
  if (u.kind === "vectorize" && params.length === 0)
    problems.push(makeDiagnostic(Codes.UfuncSignature, declSpan(fnNode), `the function of cuda.vectorize '${u.name}' takes no input: give it at least one scalar parameter, e.g. ${example}`));
  if (problems.length) return { diagnostics: problems.map(here) };

  const inputs = params.map((p) => (p.type as { dtype: DType }).dtype);
  const result = (scalarFn.returnType as { dtype: DType }).dtype;
  if (u.kind === "reduce" && (inputs.length !== 2 || inputs.some((d) => d !== result))) {
    const t = result;
    return {
      diagnostics: [
        makeDiagnostic(
          Codes.ReduceSignature,
          declSpan(fnNode),
          `cuda.reduce combines two values into one of the same type, but the function of '${u.name}' is (${inputs.join(", ")}) => ${result}: write (a: ${t}, b: ${t}): ${t} => …`,
        ),
      ].map(here),
    };
  }

  const name = ufuncKernelName(u);
  const text = u.kind === "vectorize" ? vectorizeTemplate(name, inputs, result) : reduceTemplate(name, result);
  return lowerUfuncTemplate(host, module, u, text, decl);
}

/**
 * Lowers the kernel `text` (CudaScript source declaring `const <ufuncKernelName(u)> = cuda.jit(…)`, which
 * calls the function as `scalarFunction`) with every span at the ufunc's call.
 */
export function lowerUfuncTemplate(host: UfuncHost, module: ModuleInfo, u: UfuncDecl, text: string, decl: FunctionDecl): UfuncResult {
  const name = ufuncKernelName(u);
  // The import makes the front end read `cuda.jit` as CudaScript's (its names are replaced below).
  const templateSf = ts.createSourceFile(`${module.file}#${name}.ts`, `import { cuda } from "cudascript";\n${text}`, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const info = readModuleInfo(module.file, templateSf);
  const kernelDecl = info.functions.get(name)!;
  // The template sees CudaScript's names and the scalar function only, whatever the user's file imports.
  const arrayTypes = ([1, 2, 3] as const).map((rank): [string, CudaScriptExport] => [`Array${rank}D`, { kind: "arrayType", rank }]);
  const cudascript = new Map<string, CudaScriptExport>([["cuda", { kind: "cuda" }], ...arrayTypes, ...ALL_DTYPES.map((d): [string, CudaScriptExport] => [d, { kind: "dtype", dtype: d }])]);
  const templateModule: ModuleInfo = { ...info, cudascript, functions: new Map([[name, kernelDecl], [SCALAR, decl]]) };
  const made = lowerFunction(host, templateModule, kernelDecl);
  const at = spanIn(module, u.call);
  const kernel = allSpansAt(made.fn, at);
  // The template is CudaScript's own code: a diagnostic in it is a bug here, or a dtype the template cannot handle.
  const diagnostics = made.diagnostics
    .filter((d) => d.severity === "error")
    .map((d) => makeDiagnostic(Codes.InternalError, at, `the kernel CudaScript makes for cuda.${u.kind} '${u.name}' does not compile (${d.code}: ${d.message}); please report it with the file`));
  return { kernel: diagnostics.length ? undefined : kernel, diagnostics };
}

/** The template's name for the scalar function. */
export const SCALAR = "scalarFunction";

/**
 * One thread per output element in a grid-stride loop. The output is C-contiguous with shape
 * [n / (d1 * d2), d1, d2]; input k's element for output index (c0, c1, c2) is at
 * c0 * sK_0 + c1 * sK_1 + c2 * sK_2, where a broadcast dimension has stride 0.
 */
function vectorizeTemplate(name: string, inputs: readonly DType[], result: DType): string {
  const params = inputs.map((d, k) => `in${k}: Array1D<${d}>, in${k}s0: i32, in${k}s1: i32, in${k}s2: i32`).join(", ");
  const args = inputs.map((_, k) => `in${k}[c0 * in${k}s0 + c1 * in${k}s1 + c2 * in${k}s2]`).join(", ");
  return `const ${name} = cuda.jit((d1: i32, d2: i32, out: Array1D<${result}>, ${params}) => {
  const n = out.length;
  for (let i = cuda.grid(1); i < n; i += cuda.gridsize(1)) {
    const c2 = i % d2;
    const rest = (i / d2) | 0;
    const c1 = rest % d1;
    const c0 = (rest / d1) | 0;
    out[i] = ${SCALAR}(${args});
  }
});
`;
}

/**
 * One pass of a reduction that needs the function to be associative only (not commutative): each thread
 * folds a contiguous chunk of the input in order, then each block combines its threads' values in a
 * shared-memory tree that keeps left-to-right order (slot t takes t + d when t is a multiple of 2d), and
 * writes one partial per block. The runtime runs it over the input, then once more with one block over
 * the partials, where `applyInit` folds the initial value in first: f(init, x0 ⊕ x1 ⊕ …).
 */
function reduceTemplate(name: string, t: DType): string {
  const B = REDUCE_BLOCK;
  return `const ${name} = cuda.jit((n: i32, src: Array1D<${t}>, dst: Array1D<${t}>, init: ${t}, applyInit: i32) => {
  const partial = cuda.shared.array(${B}, ${t});
  const tid = cuda.threadIdx.x;
  const threads = cuda.gridDim.x * ${B};
  const chunk = ((n + threads - 1) / threads) | 0;
  const begin = (cuda.blockIdx.x * ${B} + tid) * chunk;
  const end = begin + chunk < n ? begin + chunk : n;
  if (begin < end) {
    let acc = src[begin];
    for (let j = begin + 1; j < end; j += 1) acc = ${SCALAR}(acc, src[j]);
    partial[tid] = acc;
  }
  cuda.syncthreads();
  const blockBegin = cuda.blockIdx.x * ${B} * chunk;
  const left = n - blockBegin;
  const filled = left <= 0 ? 0 : ((left + chunk - 1) / chunk) | 0;
  const valid = filled < ${B} ? filled : ${B};
  for (let d = 1; d < ${B}; d *= 2) {
    if (tid % (2 * d) === 0 && tid + d < valid) partial[tid] = ${SCALAR}(partial[tid], partial[tid + d]);
    cuda.syncthreads();
  }
  if (tid === 0 && valid > 0) dst[cuda.blockIdx.x] = applyInit !== 0 ? ${SCALAR}(init, partial[0]) : partial[0];
});
`;
}

function isSpan(x: unknown): x is Span {
  return typeof x === "object" && x !== null && "file" in x && "start" in x && "end" in x && "line" in x && "col" in x;
}

/** A copy of `value` with every span at `at`: the template's positions mean nothing in the user's file. */
function allSpansAt<T>(value: T, at: Span): T {
  const memo = new Map<object, unknown>();
  const visit = (x: unknown): unknown => {
    if (typeof x !== "object" || x === null) return x;
    if (isSpan(x)) return at;
    const seen = memo.get(x);
    if (seen !== undefined) return seen;
    if (Array.isArray(x)) {
      const out: unknown[] = [];
      memo.set(x, out);
      for (const el of x) out.push(visit(el));
      return out;
    }
    if (Object.getPrototypeOf(x) !== Object.prototype) return x;
    const out: Record<string, unknown> = {};
    memo.set(x, out);
    for (const [k, v] of Object.entries(x)) out[k] = visit(v);
    return out;
  };
  return visit(value) as T;
}
