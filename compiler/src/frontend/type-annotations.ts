/**
 * Reads parameter and variable type annotations (`f32`, `Float32Array`, `Array2D<f32>`, user aliases of
 * those) into IR types, syntactically, following type aliases across files.
 */
import ts from "typescript";
import { ALL_DTYPES, TYPED_ARRAY_DTYPES, scalar, type DType, type Type } from "../ir/types";
import { numbaTypeGap } from "./cuda-names";
import type { ModuleInfo } from "./module-info";
import type { FrontEnd } from "./program";

export type AnnotationResult = { ok: true; type: Type } | { ok: false; message: string };

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
      return { ok: false, message: `records (object types) cannot be passed to kernels: pass each field as its own parameter, or each field of many records as its own array (structure of arrays)` };
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
  const sym = front.resolveName(module, name);
  if (sym?.kind === "typeAlias") return readTypeAnnotation(front, sym.module, sym.decl.type, depth + 1);
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
  const el = readTypeAnnotation(front, module, arg, depth + 1);
  if (!el.ok) return el;
  if (el.type.kind !== "scalar") return { ok: false, message: `the element type of Array${rank}D must be a dtype such as f32 or i32` };
  return { ok: true, type: { kind: "array", dtype: el.type.dtype, rank, space: "global" } };
}
