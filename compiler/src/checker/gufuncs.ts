/**
 * Generalized ufuncs (Numba's `@guvectorize([...], "(m,n),(n,p)->(m,p)", target="cuda")`): the kernel that
 * `cuda.guvectorize(fn, layout)` launches is made here, at build time, from the function and its layout.
 *
 * The function's annotations are its signature, read against the layout (parsed here, CS3008): an input
 * with core dimensions `(n)` / `(m,n)` is an `Array1D<T>` / `Array2D<T>` parameter, a `()` input a scalar
 * `T`; the outputs follow the inputs as array parameters (a `()` output is an `Array1D<T>` of length 1 the
 * function writes as `out[0] = …`, as in Numba), and the function returns void (CS3009 otherwise).
 *
 * Kernel design: one thread per LOOP index (the leading dimensions beyond the core ones, broadcast by
 * NumPy's rules) in a grid-stride loop. Each argument is passed as an array whose leading dimension is its
 * own flattened loop dimensions, then its core dimensions (rank 1 + core rank; a `()` output is `[L, 1]`).
 * The loop shape is padded to 3 dimensions `[L / (d1 * d2), d1, d2]`; input k's row for loop coordinates
 * (c0, c1, c2) is `c0 * sK_0 + c1 * sK_1 + c2 * sK_2`, with stride 0 along a dimension it broadcasts
 * (runtime/src/gufunc.ts computes them, as for vectorize). The thread takes that row as a view (`x[row]`
 * of an Array2D is a 1-D view, of an Array3D a 2-D view; of an Array1D the element for a `()` input), the
 * outputs' row `i` (never broadcast), and calls the function. The template is CudaScript lowered by the
 * same front end as a user's kernel, so every backend compiles it like any other.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import type { DType, Type } from "../ir/types";
import type { ModuleInfo, UfuncDecl } from "../frontend/module-info";
import { formatGufuncLayout, isLayoutError, parseGufuncLayout, type CoreDims, type GufuncLayout } from "../gufunc/layout";
import { lowerUfuncTemplate, resolveUfuncFunction, SCALAR, spanIn, ufuncKernelName, type UfuncHost, type UfuncResult } from "./ufuncs";

const EXAMPLE_FN = "(a: Array1D<f32>, b: Array1D<f32>, out: Array1D<f32>): void => { … }";

/** The layout argument of `u`, parsed, or CS3008 saying what to write. */
export function readGufuncLayout(module: ModuleInfo, u: UfuncDecl): GufuncLayout | Diagnostic {
  const args = u.call.arguments;
  const at = (node: ts.Node, message: string): Diagnostic => makeDiagnostic(Codes.GufuncLayout, spanIn(module, node), message);
  if (args.length < 2) return at(u.call, `cuda.guvectorize takes the function and its layout string, the core dimensions of its inputs and outputs: write cuda.guvectorize(${EXAMPLE_FN}, "(n),(n)->()")`);
  if (args.length > 2) return at(args[2]!, `cuda.guvectorize takes two arguments, the function and its layout string (the dtypes come from the function's annotations, the target is always the GPU): remove this argument`);
  const layoutNode = args[1]!;
  if (!ts.isStringLiteral(layoutNode) && !ts.isNoSubstitutionTemplateLiteral(layoutNode))
    return at(layoutNode, `the layout of cuda.guvectorize is read when the program is built, so it must be a string literal such as "(m,n),(n,p)->(m,p)", not an expression: write the string itself here`);
  const parsed = parseGufuncLayout(layoutNode.text);
  if (!isLayoutError(parsed)) return parsed;
  // Point at the offending character (the literal's text starts after its quote; escapes are rare in layouts).
  const span = spanIn(module, layoutNode);
  const start = Math.min(span.start + 1 + parsed.offset, span.end - 1);
  const lc = module.sourceFile.getLineAndCharacterOfPosition(start);
  return makeDiagnostic(Codes.GufuncLayout, { ...span, start, end: Math.min(start + 1, span.end), line: lc.line + 1, col: lc.character + 1 }, `bad layout "${layoutNode.text}": ${parsed.message}`);
}

/** What parameter `index` of the function must be: a scalar (a `()` input) or an array of `rank`. */
function expectedParam(layout: GufuncLayout, index: number): { readonly output: boolean; readonly dims: CoreDims; readonly rank: 0 | 1 | 2 } {
  const output = index >= layout.inputs.length;
  const dims = output ? layout.outputs[index - layout.inputs.length]! : layout.inputs[index]!;
  // A () output is a one-element array the function writes (Numba's out[0] = …).
  const rank = (output ? Math.max(dims.length, 1) : dims.length) as 0 | 1 | 2;
  return { output, dims, rank };
}

function typeText(rank: number, dtype: string): string {
  return rank === 0 ? dtype : `Array${rank}D<${dtype}>`;
}

function dtypeOf(t: Type): DType | undefined {
  return t.kind === "scalar" || t.kind === "array" ? t.dtype : undefined;
}

/** Checks `u`'s function against its layout and makes its kernel. */
export function synthesizeGufunc(host: UfuncHost, module: ModuleInfo, u: UfuncDecl): UfuncResult {
  const layout = readGufuncLayout(module, u);
  if ("code" in layout) return { diagnostics: [layout] };
  const found = resolveUfuncFunction(host, module, u, EXAMPLE_FN);
  if ("diagnostics" in found) return found;
  const { decl, fnNode, declSpan, here, lowered } = found;
  const params = lowered.params;
  const shown = formatGufuncLayout(layout);
  const arity = layout.inputs.length + layout.outputs.length;
  const fallbackDtype = params.map((p) => dtypeOf(p.type)).find((d) => d !== undefined) ?? "f32";
  // The function's own names where its parameters line up with the layout, else the layout's roles.
  const ownNames = params.length === arity;
  const wanted = Array.from({ length: arity }, (_, i) => {
    const e = expectedParam(layout, i);
    const p = ownNames ? params[i] : undefined;
    const name = p?.name ?? (e.output ? `out${layout.outputs.length === 1 ? "" : i - layout.inputs.length + 1}` : `in${i + 1}`);
    return `${name}: ${typeText(e.rank, (p && dtypeOf(p.type)) ?? fallbackDtype)}`;
  });
  const signature = `(${wanted.join(", ")}): void`;
  const problem = (node: ts.Node, message: string): Diagnostic => makeDiagnostic(Codes.GufuncSignature, declSpan(node), message);
  const problems: Diagnostic[] = [];
  const count = (n: number, what: string): string => `${n} ${what}${n === 1 ? "" : "s"}`;
  if (params.length !== arity)
    problems.push(
      problem(
        fnNode,
        `the layout "${shown}" has ${count(layout.inputs.length, "input")} and ${count(layout.outputs.length, "output")}, so the function of cuda.guvectorize '${u.name}' takes ${arity} parameters (the inputs, then the outputs it writes), but it takes ${params.length}: write ${signature} => { … }`,
      ),
    );
  else
    params.forEach((p, i) => {
      const e = expectedParam(layout, i);
      const rank = p.type.kind === "array" ? p.type.rank : p.type.kind === "scalar" ? 0 : -1;
      if (rank === e.rank) return;
      const which = e.output ? `output ${i - layout.inputs.length + 1}` : `input ${i + 1}`;
      const why = e.output && e.dims.length === 0 ? `a () output is a one-element array the function writes as ${p.name}[0] = …` : e.rank === 0 ? "a () input is one value per call" : `its core dimensions (${e.dims.join(",")}) make it ${e.rank === 1 ? "a 1-D" : "a 2-D"} array`;
      problems.push(problem(fnNode.parameters[i] ?? fnNode, `'${p.name}' is ${which} of the layout "${shown}": ${why}, so write ${wanted[i]} (the function is ${signature})`));
    });
  if (lowered.returnType.kind !== "void")
    problems.push(problem(fnNode.type ?? fnNode, `the function of cuda.guvectorize '${u.name}' writes its results into its output parameters and returns nothing: write ${signature} => { … } (a () output is a one-element array, out[0] = value)`));
  // The host side (runtime/src/gufunc.ts) moves real and bool arrays; complex arrays are not wired there.
  if ([...params.map((p) => p.type), lowered.returnType].some((t) => dtypeOf(t) === "c64" || dtypeOf(t) === "c128"))
    problems.push(problem(fnNode, `cuda.guvectorize does not take complex numbers (c64/c128) yet: write a cuda.jit kernel over Array1D<c64> that loops over its rows`));
  if (problems.length) return { diagnostics: problems.map(here) };

  const text = gufuncTemplate(ufuncKernelName(u), layout, params.map((p) => dtypeOf(p.type)!));
  return lowerUfuncTemplate(host, module, u, text, decl);
}

/** The kernel (see the module comment); `dtypes` are the function's parameters' element types. */
function gufuncTemplate(name: string, layout: GufuncLayout, dtypes: readonly DType[]): string {
  const nin = layout.inputs.length;
  const params: string[] = [];
  const args: string[] = [];
  dtypes.forEach((d, i) => {
    const e = expectedParam(layout, i);
    if (e.output) {
      const k = i - nin;
      params.push(`out${k}: Array${e.rank + 1}D<${d}>`);
      args.push(`out${k}[i]`);
    } else {
      params.push(`in${i}: Array${e.rank + 1}D<${d}>, in${i}s0: i32, in${i}s1: i32, in${i}s2: i32`);
      args.push(`in${i}[c0 * in${i}s0 + c1 * in${i}s1 + c2 * in${i}s2]`);
    }
  });
  return `const ${name} = cuda.jit((d1: i32, d2: i32, ${params.join(", ")}) => {
  const n = out0.length;
  for (let i = cuda.grid(1); i < n; i += cuda.gridsize(1)) {
    const c2 = i % d2;
    const rest = (i / d2) | 0;
    const c1 = rest % d1;
    const c0 = (rest / d1) | 0;
    ${SCALAR}(${args.join(", ")});
  }
});
`;
}

