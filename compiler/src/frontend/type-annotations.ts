/**
 * Reads parameter and variable type annotations (`f32`, `Float32Array`, `Array2D<f32>`, user aliases of
 * those) into IR types, syntactically, following type aliases across files.
 */
import ts from "typescript";
import { ALL_DTYPES, TYPED_ARRAY_DTYPES, scalar, type DType, type RecordType, type Type } from "../ir/types";
import { recordLayout } from "../dtypes/records";
import { numbaTypeGap } from "./cuda-names";
import type { ModuleInfo } from "./module-info";
import type { FrontEnd } from "./program";

export type AnnotationResult = { ok: true; type: Type } | { ok: false; message: string };

const RECORD_ADVICE =
  "declare the record's fields in an interface of dtypes (`interface Particle { x: f32; id: i32 }`), make its dtype with the same fields in the same order (`const Particle = cuda.record({ x: f32, id: i32 })`) and take an `Array1D<Particle>` (docs/kernel-language.md#records)";

const NUMBER_ADVICE =
  "`number` does not say which GPU type to use: write `i32` for sizes and indices, `f32` for single-precision values (or `f64`, `u32`, `i8`, …), imported from \"cudascript\"";

export function readTypeAnnotation(front: FrontEnd, module: ModuleInfo, node: ts.TypeNode, depth = 0): AnnotationResult {
  if (depth > 8) return { ok: false, message: "type alias chain is too deep" };
  switch (node.kind) {
    case ts.SyntaxKind.NumberKeyword:
      return { ok: false, message: NUMBER_ADVICE };
    case ts.SyntaxKind.BooleanKeyword:
      return { ok: true, type: scalar("bool") };
    case ts.SyntaxKind.BigIntKeyword:
      // TypeScript's own name for an i64 value (i64 itself is `bigint` in cudascript's types).
      return { ok: true, type: scalar("i64") };
    case ts.SyntaxKind.TypeLiteral:
      return { ok: false, message: `an object type cannot be a kernel parameter: for records, ${RECORD_ADVICE}` };
    case ts.SyntaxKind.ArrayType: {
      const el = (node as ts.ArrayTypeNode).elementType;
      const rec = ts.isTypeLiteralNode(el) || (ts.isTypeReferenceNode(el) && ts.isIdentifier(el.typeName) && readRecordType(front, module, el) !== undefined);
      if (rec) return { ok: false, message: `'${node.getText(module.sourceFile)}' is a JavaScript array of objects, which kernels cannot take: ${RECORD_ADVICE}` };
      return { ok: false, message: `JavaScript arrays cannot be passed to kernels; use a typed array such as Float32Array or Int32Array` };
    }
    case ts.SyntaxKind.ParenthesizedType:
      return readTypeAnnotation(front, module, (node as ts.ParenthesizedTypeNode).type, depth);
    case ts.SyntaxKind.TypeOperator: {
      const op = node as ts.TypeOperatorNode;
      if (op.operator === ts.SyntaxKind.ReadonlyKeyword) return readTypeAnnotation(front, module, op.type, depth);
      break;
    }
    case ts.SyntaxKind.TypeReference:
      return readTypeReference(front, module, node as ts.TypeReferenceNode, depth);
  }
  return { ok: false, message: `type '${node.getText(module.sourceFile)}' cannot be passed to a kernel; use a dtype (f32, i32, …), a typed array (Float32Array, Int32Array, …) or Array2D<f32>/Array3D<f32>` };
}

function readTypeReference(front: FrontEnd, module: ModuleInfo, ref: ts.TypeReferenceNode, depth: number): AnnotationResult {
  if (!ts.isIdentifier(ref.typeName)) {
    // `cs.f32` through a namespace import
    const q = ref.typeName;
    if (ts.isIdentifier(q.left) && module.cudascript.get(q.left.text)?.kind === "namespace") return cudascriptType(front, module, q.right.text, ref, depth);
    return { ok: false, message: `type '${ref.getText(module.sourceFile)}' is not a kernel parameter type` };
  }
  const name = ref.typeName.text;
  const cs = module.cudascript.get(name);
  if (cs) {
    if (cs.kind === "dtype") return { ok: true, type: scalar(cs.dtype) };
    if (cs.kind === "arrayType") return ndArrayType(front, module, ref, cs.rank, depth);
    if (cs.kind === "other") return cudascriptType(front, module, cs.name, ref, depth);
  }
  const typed = TYPED_ARRAY_DTYPES.get(name);
  if (typed && !module.typeAliases.has(name) && !module.imports.has(name)) return { ok: true, type: { kind: "array", dtype: typed, rank: 1, space: "global" } };
  const sym = front.resolveTypeName(module, name);
  if (sym?.kind === "typeAlias") return readTypeAnnotation(front, sym.module, sym.decl.type, depth + 1);
  if (sym?.kind === "interface")
    return { ok: false, message: `'${name}' is a record: a kernel takes one as a parameter (\`p: ${name}\`) or in an array (\`Array1D<${name}>\`); anywhere else, use its fields` };
  const gap = numbaTypeGap(name);
  if (gap) return { ok: false, message: `'${name}': ${gap}` };
  if (name === "Array" || name === "ReadonlyArray")
    return { ok: false, message: `JavaScript arrays cannot be passed to kernels; use a typed array such as Float32Array or Int32Array` };
  return { ok: false, message: `type '${ref.getText(module.sourceFile)}' cannot be passed to a kernel; use a dtype (f32, i32, …), a typed array (Float32Array, …) or Array2D<f32>` };
}

function cudascriptType(front: FrontEnd, module: ModuleInfo, exported: string, ref: ts.TypeReferenceNode, depth: number): AnnotationResult {
  if (exported === "Array1D") return ndArrayType(front, module, ref, 1, depth);
  if (exported === "Array2D") return ndArrayType(front, module, ref, 2, depth);
  if (exported === "Array3D") return ndArrayType(front, module, ref, 3, depth);
  // cuda.random's state array (docs/kernel-language.md#random-numbers): [n, 2] u64, Numba's xoroshiro128p_dtype.
  if (exported === "Xoroshiro128pStates") return { ok: true, type: { kind: "array", dtype: "u64", rank: 2, space: "global" } };
  const d = (ALL_DTYPES as readonly string[]).includes(exported) ? (exported as DType) : undefined;
  if (d) return { ok: true, type: scalar(d) };
  // `Float16Array` imported from "cudascript" (Node 20/22 have no global one): the same 1-D f16 array.
  const typed = TYPED_ARRAY_DTYPES.get(exported);
  if (typed) return { ok: true, type: { kind: "array", dtype: typed, rank: 1, space: "global" } };
  const gap = numbaTypeGap(exported);
  if (gap) return { ok: false, message: `'${exported}': ${gap}` };
  return { ok: false, message: `'${exported}' from "cudascript" is not a kernel parameter type` };
}

function ndArrayType(front: FrontEnd, module: ModuleInfo, ref: ts.TypeReferenceNode, rank: 1 | 2 | 3, depth: number): AnnotationResult {
  const arg = ref.typeArguments?.[0];
  if (!arg) return { ok: false, message: `write the element dtype: Array${rank}D<f32>, Array${rank}D<i32>, …` };
  if (ts.isTypeReferenceNode(arg)) {
    const rec = readRecordType(front, module, arg);
    if (rec && "problem" in rec) return { ok: false, message: rec.problem };
    if (rec) return { ok: true, type: { kind: "array", dtype: "u8", rank, space: "global", record: rec } };
  }
  const el = readTypeAnnotation(front, module, arg, depth + 1);
  if (!el.ok) return el;
  if (el.type.kind !== "scalar") return { ok: false, message: `the element type of Array${rank}D must be a dtype such as f32 or i32` };
  return { ok: true, type: { kind: "array", dtype: el.type.dtype, rank, space: "global" } };
}

/**
 * The record type an annotation names: an `interface` (of this file or imported) whose members are
 * fields of dtypes. Undefined when the name is no interface; `problem` (CS2004's message) when a member
 * is not a dtype field (nested records and array fields are not supported: docs/kernel-language.md#records).
 */
export function readRecordType(front: FrontEnd, module: ModuleInfo, ref: ts.TypeReferenceNode): RecordType | { problem: string } | undefined {
  if (!ts.isIdentifier(ref.typeName)) return undefined;
  const sym = front.resolveTypeName(module, ref.typeName.text);
  if (sym?.kind !== "interface") return undefined;
  const decl = sym.decl, name = decl.name.text, sf = sym.module.sourceFile;
  if (decl.typeParameters?.length || decl.heritageClauses?.length)
    return { problem: `record '${name}' must be a plain interface of dtype fields (no type parameters, no extends)` };
  const fields: [string, DType][] = [];
  for (const m of decl.members) {
    if (!ts.isPropertySignature(m) || !m.type || !(ts.isIdentifier(m.name) || ts.isStringLiteral(m.name)) || m.questionToken)
      return { problem: `record '${name}': '${m.getText(sf)}' is not a field; a record's members are required fields of dtypes (\`x: f32;\`)` };
    const t = readTypeAnnotation(front, sym.module, m.type, 1);
    if (!t.ok || t.type.kind !== "scalar")
      return {
        problem: `record '${name}': field '${m.name.text}' has type '${m.type.getText(sf)}', but record fields are dtypes (f32, i32, bool, i64, f16, c64, …); nested records and array fields are not supported: flatten them into fields of their own`,
      };
    fields.push([m.name.text, t.type.dtype]);
  }
  if (fields.length === 0) return { problem: `record '${name}' has no fields` };
  return { kind: "record", name, layout: recordLayout(fields) };
}
