import { strict as assert } from "node:assert";
import { test } from "node:test";
import type * as IR from "./nodes";
import { F32, I32, type ArrayType } from "./types";
import { assignsVar, sameExpr } from "./visit";

const span: IR.Span = { file: "k.ts", start: 0, end: 1, line: 1, col: 1 };
const variable = (id: number, name: string, type: IR.Var["type"] = I32): IR.Var => ({ id, name, type, isParam: false, mutable: true, span });
const use = (v: IR.Var): IR.VarExpr => ({ k: "var", type: v.type, v, span });
const num = (value: number, type = F32): IR.ConstExpr => ({ k: "const", type, value, span });
const arrayType: ArrayType = { kind: "array", dtype: "f32", rank: 1, space: "global" };

test("sameExpr compares constants by Object.is, variables by id, and array reads only when asked", () => {
  assert.ok(sameExpr(num(NaN), num(NaN)));
  assert.ok(!sameExpr(num(0), num(-0)), "0 and -0 are different values");
  assert.ok(!sameExpr(num(1, I32), num(1)), "same value, other dtype");
  const i = variable(1, "i");
  // A copy of the variable (as the deserialised IR makes) is the same variable.
  assert.ok(sameExpr(use(i), use({ ...i })));
  const a = variable(2, "a", arrayType);
  const read = (): IR.IndexExpr => ({ k: "index", type: F32, array: use(a), indices: [use(i)], span });
  assert.ok(!sameExpr(read(), read()), "two reads of memory are not the same value unless the caller says so");
  assert.ok(sameExpr(read(), read(), true));
});

test("assignsVar finds declarations, assignments and warp results, in nested IR and normalised statements", () => {
  const x = variable(1, "x"), y = variable(2, "y");
  const assign = (v: IR.Var): IR.Stmt => ({ k: "assign", target: use(v), value: num(1, I32), span }) as IR.Stmt;
  const loop = { k: "loop", init: [], body: [{ k: "if", cond: num(1, I32), then: [assign(x)], span }], update: [], testFirst: true, span };
  assert.ok(assignsVar([loop], x));
  assert.ok(!assignsVar([loop], y));
  const warpResult = { k: "sync", name: "shflSync", args: [], result: y, span };
  const inlined = { k: "fnScope", id: 1, name: "f", body: [warpResult], span };
  assert.ok(assignsVar([inlined], y));
  const declaration = { k: "decl", v: { ...y }, span };
  assert.ok(assignsVar([declaration], y));
});
