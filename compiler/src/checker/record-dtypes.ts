/**
 * Check-time half of the record launch check (docs/kernel-language.md#records): a module's
 * `const Particle = cuda.record({ x: f32, … })` next to `interface Particle { … }` (of the same file or
 * imported) must list the same fields, dtypes and order, since the kernels read the interface's layout
 * and the host writes the dtype's: CS2043 otherwise (the launch reports the same as CSR080). A field
 * that is not a dtype imported from "cudascript" is CS2040.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import { recordFieldsText, recordLayout, sameRecordFields } from "../dtypes/records";
import type { DType } from "../ir/types";
import type { Span } from "../ir/nodes";
import { isCudaReference, type ModuleInfo } from "../frontend/module-info";
import type { FrontEnd } from "../frontend/program";
import { readRecordType } from "../frontend/type-annotations";

function spanOf(module: ModuleInfo, node: ts.Node): Span {
  const start = node.getStart(module.sourceFile);
  const lc = module.sourceFile.getLineAndCharacterOfPosition(start);
  return { file: module.file, start, end: node.end, line: lc.line + 1, col: lc.character + 1 };
}

/** `cuda.record({ … })` (parentheses and `as` around it allowed), else undefined. */
export function recordDtypeCall(module: ModuleInfo, e: ts.Expression | undefined): ts.CallExpression | undefined {
  let init = e;
  while (init && (ts.isParenthesizedExpression(init) || ts.isAsExpression(init) || ts.isSatisfiesExpression(init))) init = init.expression;
  if (!init || !ts.isCallExpression(init) || !ts.isPropertyAccessExpression(init.expression) || init.expression.name.text !== "record") return undefined;
  return isCudaReference(init.expression.expression, module.cudascript) ? init : undefined;
}

/** The fields of `cuda.record({ x: f32, … })` in order, when every one is a dtype imported from "cudascript". */
export function recordDtypeFields(module: ModuleInfo, call: ts.CallExpression): [string, DType][] | undefined {
  const arg = call.arguments[0];
  if (!arg || !ts.isObjectLiteralExpression(arg)) return undefined;
  const fields: [string, DType][] = [];
  for (const p of arg.properties) {
    const key = p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
    const value = ts.isPropertyAssignment(p) ? p.initializer : ts.isShorthandPropertyAssignment(p) ? p.name : undefined;
    const cs = value && ts.isIdentifier(value) ? module.cudascript.get(value.text) : undefined;
    if (key === undefined || cs?.kind !== "dtype") return undefined;
    fields.push([key, cs.dtype]);
  }
  return fields.length ? fields : undefined;
}

export function checkRecordDtypes(front: FrontEnd, module: ModuleInfo): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [name, decl] of module.consts) {
    const init = recordDtypeCall(module, decl.initializer);
    if (!init) continue;
    const arg = init.arguments[0];
    if (!arg || !ts.isObjectLiteralExpression(arg)) continue;
    const fields: [string, DType][] = [];
    let ok = true;
    for (const p of arg.properties) {
      const key = p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined;
      const value = ts.isPropertyAssignment(p) ? p.initializer : ts.isShorthandPropertyAssignment(p) ? p.name : undefined;
      const cs = value && ts.isIdentifier(value) ? module.cudascript.get(value.text) : undefined;
      if (key === undefined || cs?.kind !== "dtype") {
        out.push(
          makeDiagnostic(
            Codes.RecordTypeInvalid,
            spanOf(module, p),
            `cuda.record fields are dtypes imported from "cudascript" (\`x: f32\`, \`id: i32\`, …); nested records and array fields are not supported: flatten them into fields of their own`,
          ),
        );
        ok = false;
        continue;
      }
      fields.push([key, cs.dtype]);
    }
    if (!ok || fields.length === 0) continue;
    const itf = readRecordType(front, module, ts.factory.createTypeReferenceNode(name));
    if (!itf || "problem" in itf) continue;
    const dtype = recordLayout(fields);
    if (!sameRecordFields(dtype, itf.layout))
      out.push(
        makeDiagnostic(
          Codes.RecordDtypeMismatch,
          spanOf(module, init),
          `the record dtype '${name}' has the fields ${recordFieldsText(dtype)}, but interface ${name} declares ${recordFieldsText(itf.layout)}: list the same fields in the same order, or the kernels read other bytes than the host writes (the launch would throw CSR080)`,
        ),
      );
  }
  return out;
}
