/**
 * Hovers on records (docs/kernel-language.md#records): on a record type's name (its interface, a type
 * reference `Array1D<Particle>`, the `cuda.record` dtype of the same name) the C-struct layout numpy's
 * align=True gives it — size, alignment, and each field's offset, size and alignment — and on a field
 * (in the interface, in `cuda.record({ … })`, or `ps[i].x` / `p.x` / `sh[i].x` in a kernel) that field's.
 */
import { readRecordType, type RecordType } from "@cudascript/compiler";
import { DTYPES, fieldAlignment } from "@cudascript/compiler/dtypes";
import type { ModuleInfo } from "./ast";
import { ts, type TS } from "./tsapi";
import type { Workspace } from "./workspace";

type Front = Workspace["checker"]["front"];

/** The hover's markdown for `id`, when it names a record type or one of its fields. */
export function recordHover(front: Front, info: ModuleInfo, id: TS.Identifier): string | undefined {
  const p = id.parent;
  // A field: in the interface, in cuda.record({ … }), or accessed in a kernel.
  if (ts.isPropertySignature(p) && p.name === id && ts.isInterfaceDeclaration(p.parent)) return fieldText(recordNamed(front, info, p.parent.name.text), id.text);
  if (ts.isPropertyAssignment(p) && p.name === id && ts.isObjectLiteralExpression(p.parent)) {
    const owner = recordDtypeConstName(p.parent);
    return owner ? fieldText(recordNamed(front, info, owner), id.text) : undefined;
  }
  if (ts.isPropertyAccessExpression(p) && p.name === id) return fieldText(recordOf(front, info, p.expression, 0), id.text);
  // The type: the interface's name, a type reference, or the dtype const of the same name.
  if (ts.isPropertyAccessExpression(p) || ts.isPropertyAssignment(p)) return undefined;
  const rec = recordNamed(front, info, id.text);
  return rec ? layoutText(rec) : undefined;
}

function recordNamed(front: Front, info: ModuleInfo, name: string): RecordType | undefined {
  const r = readRecordType(front, info, ts.factory.createTypeReferenceNode(name));
  return r && !("problem" in r) ? r : undefined;
}

/** `const Particle = cuda.record({ … })`: the name the object literal's dtype is bound to. */
function recordDtypeConstName(obj: TS.ObjectLiteralExpression): string | undefined {
  const call = obj.parent;
  if (!call || !ts.isCallExpression(call) || !ts.isPropertyAccessExpression(call.expression) || call.expression.name.text !== "record") return undefined;
  const decl = call.parent;
  return decl && ts.isVariableDeclaration(decl) && ts.isIdentifier(decl.name) ? decl.name.text : undefined;
}

/**
 * The record an expression holds, as far as the declarations in view say: `ps[i]` of a parameter typed
 * `Array1D<Particle>` (or `p: Particle`), of `cuda.shared.array(n, Particle)` / `cuda.local.array`, or a
 * local copied from one of those (`const p = ps[i]`).
 */
function recordOf(front: Front, info: ModuleInfo, e: TS.Expression, depth: number): RecordType | undefined {
  if (depth > 8) return undefined;
  let x = e;
  while (ts.isParenthesizedExpression(x) || ts.isNonNullExpression(x)) x = x.expression;
  while (ts.isElementAccessExpression(x)) x = x.expression;
  if (!ts.isIdentifier(x)) return undefined;
  const decl = declarationOf(x);
  if (!decl) return undefined;
  if (ts.isParameter(decl)) return decl.type ? recordInType(front, info, decl.type) : undefined;
  if (decl.type) return recordInType(front, info, decl.type);
  const init = decl.initializer;
  if (!init) return undefined;
  if (ts.isCallExpression(init) && ts.isPropertyAccessExpression(init.expression) && init.expression.name.text === "array" && init.arguments[1] && ts.isIdentifier(init.arguments[1]))
    return recordNamed(front, info, init.arguments[1].text);
  return recordOf(front, info, init, depth + 1);
}

/** The record a parameter's type names: `Particle`, `Array1D<Particle>`, … */
function recordInType(front: Front, info: ModuleInfo, t: TS.TypeNode): RecordType | undefined {
  if (!ts.isTypeReferenceNode(t) || !ts.isIdentifier(t.typeName)) return undefined;
  const direct = recordNamed(front, info, t.typeName.text);
  if (direct) return direct;
  const arg = t.typeArguments?.[0];
  return arg ? recordInType(front, info, arg) : undefined;
}

/** The parameter or variable declaration a name refers to in the enclosing scopes of this file. */
function declarationOf(id: TS.Identifier): TS.ParameterDeclaration | TS.VariableDeclaration | undefined {
  for (let n: TS.Node | undefined = id.parent; n; n = n.parent) {
    if (ts.isFunctionLike(n)) {
      const param = n.parameters.find((q) => ts.isIdentifier(q.name) && q.name.text === id.text);
      if (param) return param;
    }
    if (!ts.isBlock(n) && !ts.isSourceFile(n)) continue;
    for (const st of n.statements) {
      if (!ts.isVariableStatement(st)) continue;
      const d = st.declarationList.declarations.find((v) => ts.isIdentifier(v.name) && v.name.text === id.text);
      if (d) return d;
    }
  }
  return undefined;
}

function layoutText(r: RecordType): string {
  const rows = r.layout.fields.map((f) => `| \`${f.name}\` | ${f.dtype} | ${f.offset} | ${DTYPES[f.dtype].bytes} | ${fieldAlignment(f.dtype)} |`);
  return [
    `**record ${r.name}**: ${r.layout.size} bytes, aligned to ${r.layout.align} (numpy \`align=True\`; the generated C++ asserts it)`,
    "",
    "| field | dtype | offset | size | align |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

function fieldText(r: RecordType | undefined, name: string): string | undefined {
  const f = r?.layout.fields.find((x) => x.name === name);
  if (!r || !f) return undefined;
  return `**${r.name}.${f.name}**: ${f.dtype} at byte offset ${f.offset}, ${DTYPES[f.dtype].bytes} bytes, aligned to ${fieldAlignment(f.dtype)} (record ${r.name}: ${r.layout.size} bytes, aligned to ${r.layout.align})`;
}
