/**
 * Check-time half of the launch check of record arguments (docs/kernel-language.md#records): at
 * `k.launch(…)(a, …)`, where the checker sees the record dtype an argument was made with —
 * `const a = cuda.recordArray(Particle, n)` (or `cuda.toDevice(a)` of one, or `a.get(i)` for a record
 * taken by value), with `Particle` a `cuda.record({ … })` of this module or imported, or written inline —
 * its fields must be the kernel's record type's (names, dtypes, order): CS2047 otherwise, the same
 * comparison the launch makes at run time (CSR080). An object literal for a record taken by value must
 * name every field and no other (CSR081 at run time). What the checker cannot see is left to the launch.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import { recordFieldsText, recordLayout, sameRecordFields, type RecordLayout } from "../dtypes/records";
import type { Span } from "../ir/nodes";
import type { RecordType } from "../ir/types";
import { isCudaReference, type ModuleInfo } from "../frontend/module-info";
import type { FrontEnd } from "../frontend/program";
import { stripParensAndNonNull } from "../frontend/constants";
import { recordDtypeCall, recordDtypeFields } from "./record-dtypes";

/** The diagnostic for argument `a` of record parameter `param` (record `record`, `byValue` or an array) of kernel `kernel`, if any. */
export function checkRecordLaunchArgument(front: FrontEnd, module: ModuleInfo, kernel: string, param: string, record: RecordType & { rank: number }, byValue: boolean, a: ts.Expression, span: Span): Diagnostic | undefined {
  const x = stripParensAndNonNull(a);
  const want = record.layout;
  if (byValue && ts.isObjectLiteralExpression(x)) {
    const names = x.properties.map((p) => (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : undefined));
    if (x.properties.some((p) => ts.isSpreadAssignment(p)) || names.some((n) => n === undefined)) return undefined; // `{ ...r, x: 1 }`: the launch checks it
    const missing = want.fields.filter((f) => !names.includes(f.name)).map((f) => f.name);
    const extra = names.filter((n) => !want.fields.some((f) => f.name === n));
    if (!missing.length && !extra.length) return undefined;
    return makeDiagnostic(
      Codes.RecordLaunchMismatch,
      span,
      `parameter '${param}' of '${kernel}' is one ${record.name} record ${recordFieldsText(want)}, passed by value, but this object ${missing.length ? `has no ${missing.map((m) => `'${m}'`).join(", ")}` : ""}${missing.length && extra.length ? " and " : ""}${extra.length ? `has ${extra.map((m) => `'${m}'`).join(", ")}, which ${record.name} does not` : ""}: give every field and only those`,
    );
  }
  const given = dtypeOfArgument(front, module, x, byValue, 0);
  if (!given) return undefined;
  if (!byValue && given.rank !== undefined && given.rank !== record.rank)
    return makeDiagnostic(
      Codes.RecordLaunchMismatch,
      span,
      `parameter '${param}' of '${kernel}' is Array${record.rank}D<${record.name}>, but '${a.getText(module.sourceFile)}' is a ${given.rank}-D record array: make it with cuda.recordArray(${record.name}, ${record.rank === 1 ? "n" : record.rank === 2 ? "[rows, cols]" : "[d0, d1, d2]"}) (the launch would throw CSR081)`,
    );
  if (sameRecordFields(given.layout, want)) return undefined;
  return makeDiagnostic(
    Codes.RecordLaunchMismatch,
    span,
    `parameter '${param}' of '${kernel}' is ${byValue ? `one ${record.name} record` : `Array1D<${record.name}>`} with the fields ${recordFieldsText(want)}, but '${a.getText(module.sourceFile)}' ${byValue ? "is a record" : "holds records"} of ${given.name ? `'${given.name}' ` : ""}${recordFieldsText(given.layout)}: make its dtype with the kernel's fields in the same order, cuda.record(${recordFieldsText(want)}) (the launch would throw CSR080)`,
  );
}

/** The record dtype an argument was made with, where this file shows it. */
function dtypeOfArgument(front: FrontEnd, module: ModuleInfo, e: ts.Expression, byValue: boolean, depth: number): { name?: string; layout: RecordLayout; rank?: number } | undefined {
  if (depth > 8) return undefined;
  const x = stripParensAndNonNull(e);
  if (ts.isIdentifier(x)) {
    const init = initializerOf(x);
    return init ? dtypeOfArgument(front, module, init, byValue, depth + 1) : undefined;
  }
  if (!ts.isCallExpression(x) || !ts.isPropertyAccessExpression(x.expression)) return undefined;
  const method = x.expression.name.text, target = x.expression.expression;
  // `a.get(i)`: one record of `a`, for a record taken by value.
  if (byValue && method === "get" && !isCudaReference(target, module.cudascript)) return dtypeOfArgument(front, module, target, false, depth + 1);
  if (!isCudaReference(target, module.cudascript)) return undefined;
  if (method === "toDevice" && !byValue && x.arguments[0]) return dtypeOfArgument(front, module, x.arguments[0], false, depth + 1);
  if (method === "recordArray" && !byValue && x.arguments[0]) {
    const d = dtype(front, module, x.arguments[0]);
    // The rank where the shape shows it: a number literal (1-D) or an array literal ([rows, cols]).
    const shape = x.arguments[1] && stripParensAndNonNull(x.arguments[1]);
    const rank = shape && ts.isNumericLiteral(shape) ? 1 : shape && ts.isArrayLiteralExpression(shape) ? shape.elements.length : undefined;
    return d && { ...d, rank };
  }
  return undefined;
}

/** A record dtype expression: `cuda.record({ … })`, or the name of a module const (or import) holding one. */
function dtype(front: FrontEnd, module: ModuleInfo, e: ts.Expression): { name?: string; layout: RecordLayout } | undefined {
  const x = stripParensAndNonNull(e);
  const inline = recordDtypeCall(module, x);
  if (inline) {
    const fields = recordDtypeFields(module, inline);
    return fields && { layout: recordLayout(fields) };
  }
  if (!ts.isIdentifier(x)) return undefined;
  const local = initializerOf(x);
  if (local) {
    const d = dtype(front, module, local);
    return d && { name: d.name ?? x.text, layout: d.layout };
  }
  const sym = front.resolveName(module, x.text);
  if (sym?.kind !== "const") return undefined;
  const call = recordDtypeCall(sym.module, sym.decl.initializer);
  const fields = call && recordDtypeFields(sym.module, call);
  return fields && { name: x.text, layout: recordLayout(fields) };
}

/** The initializer of the `const` (or never-reassigned `let`) a name refers to in an enclosing block of this file. */
function initializerOf(id: ts.Identifier): ts.Expression | undefined {
  for (let n: ts.Node | undefined = id.parent; n; n = n.parent) {
    if (!ts.isBlock(n) && !ts.isSourceFile(n) && !ts.isModuleBlock(n)) continue;
    for (const st of n.statements) {
      if (!ts.isVariableStatement(st) || !(st.declarationList.flags & ts.NodeFlags.Const)) continue;
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name) && d.name.text === id.text) return d.initializer;
    }
  }
  return undefined;
}
