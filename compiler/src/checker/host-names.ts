/**
 * Host-side uses of the `cuda` namespace (module code, plain functions — everything outside kernels and
 * device functions, which the lowerer checks): a name `cuda` does not have would only fail when the
 * program runs, with an uncoded TypeError (`cuda.vectorize is not a function`). Here it is a coded
 * diagnostic at check time instead: CS1022 for a Numba API CudaScript does not have (with what to write
 * instead), CS1014 for anything else (with a "did you mean" when a name is close).
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import { CUDA_NAMES, HOST_CUDA_MEMBERS, HOST_CUDA_NAMES, KERNEL_ROOTS, unknownCudaName } from "../frontend/cuda-names";
import { isCudaReference, type ModuleInfo } from "../frontend/module-info";

const CANDIDATES = [...HOST_CUDA_NAMES, ...CUDA_NAMES, ...[...HOST_CUDA_MEMBERS].flatMap(([ns, members]) => members.map((m) => `${ns}.${m}`))];

/** `cuda.random.x` on the host: x is a host member (createXoroshiro128pStates) or a kernel-only one (a draw). */
function knownMember(ns: string, member: string): boolean {
  const host = HOST_CUDA_MEMBERS.get(ns);
  return !host || host.includes(member) || CUDA_NAMES.includes(`${ns}.${member}`);
}

export function checkHostCudaNames(module: ModuleInfo): Diagnostic[] {
  const sf = module.sourceFile;
  const kernelBodies = new Set<ts.Node>();
  for (const decl of module.functions.values()) if (decl.fn) kernelBodies.add(decl.fn);
  const out: Diagnostic[] = [];
  const visit = (n: ts.Node): void => {
    if (kernelBodies.has(n)) return;
    if (ts.isPropertyAccessExpression(n) && isCudaReference(n.expression, module.cudascript)) {
      // The root segment decides: `cuda.fp16.hadd` is reported once, as `cuda.fp16.hadd`.
      let top: ts.PropertyAccessExpression = n;
      while (ts.isPropertyAccessExpression(top.parent) && top.parent.expression === top) top = top.parent;
      const root = n.name.text;
      const member = top !== n && ts.isPropertyAccessExpression(n.parent) ? n.parent.name.text : undefined;
      if ((!HOST_CUDA_NAMES.has(root) && !KERNEL_ROOTS.has(root)) || (member !== undefined && !knownMember(root, member))) {
        const path = top.getText(sf).slice(n.expression.getText(sf).length + 1).replace(/\s+/g, "");
        const u = unknownCudaName(path, CANDIDATES);
        const start = top.getStart(sf);
        const lc = sf.getLineAndCharacterOfPosition(start);
        const span = { file: module.file, start, end: top.end, line: lc.line + 1, col: lc.character + 1 };
        out.push(makeDiagnostic(u.gap ? Codes.NumbaApiUnavailable : Codes.UnknownCudaApi, span, u.message));
      }
      return;
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}
