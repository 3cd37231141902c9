/**
 * The kernels of a file for `cudascript/kernels` and the CodeLens: read from the checker's module info
 * (which binds `cuda` through the file's real imports) and its IR (parameter types), so a kernel in a
 * comment is not listed and `gpu.jit(…)` after `import { cuda as gpu }` is.
 */
import { jsDocAbove, runTagText, type IrFunction, type Type } from "@cudascript/compiler";
import type { FunctionDecl, ModuleInfo } from "./ast";
import type { Positions } from "./positions";
import type { KernelListing, KernelParameter, KernelRange } from "./protocol";
import { uriToPath } from "./uri";
import type { Workspace } from "./workspace";

export interface ListedKernel {
  readonly listing: KernelListing;
  readonly decl: FunctionDecl;
  /** The kernel's IR (parameters, resources); every declared kernel is lowered, errors or not. */
  readonly fn?: IrFunction;
}

/** The kernels of `uri` (open, or read from disk), in source order; [] for a file without CudaScript. */
export function listKernels(ws: Workspace, positions: Positions, uri: string): ListedKernel[] {
  const file = uriToPath(uri);
  const checked = ws.resultForPath(file);
  if (!checked?.isCudaScriptFile) return [];
  const info = ws.checker.front.moduleInfo(file);
  if (!info) return [];
  const open = ws.document(uri);
  if (open && open.getText() !== info.sourceFile.text) return []; // not in step: never point at stale ranges
  const range = (start: number, end: number): KernelRange => positions.rangeOf({ file: info.file, start, end, line: 1, col: 1 });
  const out: ListedKernel[] = [];
  for (const decl of info.functions.values()) {
    if (decl.kind !== "kernel") continue;
    const fn = checked.module.kernels.find((k) => k.name === decl.name);
    const doc = jsDocAbove(info.sourceFile, decl.statement);
    const run = runTagText(doc?.body);
    const exportedAs = info.exports.get(decl.name);
    out.push({
      decl,
      fn,
      listing: {
        name: decl.name,
        ...(exportedAs !== undefined ? { exportedAs } : {}),
        range: range(decl.statement.getStart(info.sourceFile), decl.statement.end),
        nameRange: range(decl.nameNode.getStart(info.sourceFile), decl.nameNode.end),
        params: fn ? fn.params.map((p, i) => parameter(p.name, p.type, annotationText(info, decl, i))) : [],
        ...(doc ? { docRange: range(doc.start, doc.end) } : {}),
        ...(run !== undefined ? { run } : {}),
      },
    });
  }
  return out;
}

function parameter(name: string, type: Type, text: string): KernelParameter {
  if (type.kind === "array") return { name, kind: type.rank === 1 ? "array" : "ndarray", dtype: type.dtype, rank: type.rank, type: text };
  return { name, kind: "scalar", dtype: type.kind === "scalar" ? type.dtype : "i32", rank: 0, type: text };
}

function annotationText(info: ModuleInfo, decl: FunctionDecl, index: number): string {
  return decl.fn?.parameters[index]?.type?.getText(info.sourceFile) ?? "";
}
