/**
 * Lowering of assignments (`=`, compound `op=`, `++`/`--` as statements): to local variables (with
 * `let` widening), to elements (through array variables and views), to array variables (a selector),
 * and the coded refusals for everything else that cannot be assigned in a kernel.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { commonDType, typeToString, type ScalarType } from "../ir/types";
import { stripParensAndNonNull } from "./constants";
import { ARRAY_SWAP_ADVICE, needsWidening, POISON, WEAK } from "./lower-base";
import type { LoweringContext } from "./lower-context";

export class AssignmentLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  lowerAssignment(target: ts.Expression, op: IR.ArithOp | "=", rhs: ts.Expression, node: ts.Node): IR.Stmt | undefined {
    return this.lowerAssignmentValue(target, op, () => this.ctx.expr.lowerExpr(rhs), node, rhs);
  }

  /** `target = value` (or `target op= value`) of an element. */
  storeElement(target: IR.IndexExpr, op: IR.ArithOp | "=", rhsValue: IR.Expr, node: ts.Node, rhsNode?: ts.Node): IR.Stmt | undefined {
    // A record array reached another way (an array variable, `?:`) is written only through fields (lower-records.ts).
    if (!target.field && target.array.type.kind === "array" && target.array.type.record) {
      this.ctx.report(Codes.RecordUnsupported, node, `this stores into a record array through an array variable or a view, which this version does not compile: assign a field of the record array itself (ps[i].x = …)`);
      return undefined;
    }
    let value = rhsValue;
    if (op !== "=") value = this.ctx.ops.arith(op, target, value, node);
    if (value.type.kind !== "scalar") {
      this.ctx.report(Codes.TypeMismatch, rhsNode ?? node, `cannot store ${typeToString(value.type)} into an element of ${typeToString(target.array.type)}`);
      return undefined;
    }
    return { k: "assign", span: this.ctx.span(node), target, value: this.ctx.conv.convertImplicitly(value, target.type.dtype, typeToString(target.array.type), rhsNode ?? node, rhsNode, true) };
  }

  /** `rhs` lowers the value; it is given the target once that is known. */
  lowerAssignmentValue(targetNode: ts.Expression, op: IR.ArithOp | "=", rhs: (target?: IR.Expr) => IR.Expr, node: ts.Node, rhsNode?: ts.Node): IR.Stmt | undefined {
    const span = this.ctx.span(node);
    const t = stripParensAndNonNull(targetNode);
    if (ts.isIdentifier(t) && this.ctx.records.recordLocalOf(t)) {
      this.ctx.report(Codes.RecordAsValue, t, `'${t.text}' is a record copy: assign its fields (${t.text}.x = …), or copy another record into a new local (const q = ps[j])`);
      // A record on the right is the same mistake, already reported here; anything else is checked.
      if (!rhsNode || !(this.ctx.records.isRecordElement(rhsNode as ts.Expression) || this.ctx.records.recordLocalOf(rhsNode as ts.Expression))) rhs();
      return undefined;
    }
    if (ts.isIdentifier(t)) {
      const b = this.ctx.lookup(t.text);
      if (!b) {
        const sym = this.ctx.host.front.resolveName(this.ctx.module, t.text);
        if (sym?.kind === "mutable")
          this.ctx.report(Codes.MutableCapture, t, `kernels cannot change host variables such as '${t.text}': write results into an output array parameter`);
        else this.ctx.report(Codes.InvalidAssignmentTarget, t, `'${t.text}' cannot be assigned in a kernel: declare a local with let, or write into an array`);
        rhs();
        return undefined;
      }
      if (b.k === "poison") {
        rhs();
        return undefined;
      }
      if (b.k === "gridGroup") {
        this.ctx.report(Codes.GridGroupMisuse, t, `'${t.text}' is a grid group and cannot be reassigned: keep the one const ${t.text} = cuda.cg.thisGrid() and call ${t.text}.sync()`);
        rhs();
        return undefined;
      }
      // An array variable takes another array (lower-array-vars.ts).
      if (b.k === "var" && b.arrayVar) {
        if (b.isConstDecl) {
          this.ctx.report(Codes.InvalidAssignmentTarget, t, `'${t.text}' is a constant: declare it with let to change it`);
          rhs();
          return undefined;
        }
        if (op !== "=") {
          this.ctx.report(Codes.InvalidAssignmentTarget, t, `'${t.text}' holds an array: assign another array to it, or assign its elements`);
          rhs();
          return undefined;
        }
        return this.ctx.arrayVars.assignArrayVariable({ v: b.v, arrayVar: b.arrayVar }, t.text, rhs(), rhsNode ?? node, node);
      }
      // Arrays first: for an array, "declare it with let" would be wrong advice (CS3005 refuses that).
      if (b.k === "var" && b.v.type.kind === "array") {
        if (!b.rebindReported)
          this.ctx.report(Codes.InvalidAssignmentTarget, t, `array '${t.text}' cannot be reassigned: assign its elements, e.g. ${t.text}[i] = value; ${ARRAY_SWAP_ADVICE}`);
        rhs();
        return undefined;
      }
      if (b.k === "const" || (b.k === "var" && b.isConstDecl)) {
        this.ctx.report(Codes.InvalidAssignmentTarget, t, `'${t.text}' is a constant: declare it with let to change it`);
        rhs();
        return undefined;
      }
      const v = b.v;
      if (v.type.kind !== "scalar") return undefined;
      const target: IR.VarExpr = { k: "var", type: v.type, v, span: this.ctx.span(t) };
      let value = rhs(target);
      if (op !== "=") value = this.ctx.ops.arith(op, target, value, node);
      if (value.type.kind !== "scalar") {
        this.ctx.report(Codes.TypeMismatch, rhsNode ?? node, `cannot assign ${typeToString(value.type)} to a ${typeToString(v.type)} variable`);
        return undefined;
      }
      // Widen un-annotated lets: an int that receives floats becomes a float, f32 receiving f64 becomes f64.
      if (!WEAK.has(value)) {
        const cur = v.type.dtype, incoming = (value.type as ScalarType).dtype;
        const declNode = this.ctx.declNodeOf(v);
        if (declNode && !this.ctx.isAnnotated(declNode) && needsWidening(cur, incoming)) {
          this.ctx.hints.set(declNode, commonDType(cur, incoming));
          this.ctx.widened = true;
        }
      }
      return { k: "assign", span, target, value: this.ctx.conv.convertImplicitly(value, v.type.dtype, `the ${v.type.dtype} '${v.name}'`, rhsNode ?? node, rhsNode) };
    }
    if (ts.isElementAccessExpression(t) && this.ctx.records.isRecordElement(t)) {
      if (op !== "=") {
        this.ctx.report(Codes.RecordAsValue, t, `'${t.getText(this.ctx.sf)}' is a whole record: '${op}=' works on its fields (${t.getText(this.ctx.sf)}.x ${op}= …)`);
        return undefined;
      }
      if (!rhsNode) return undefined;
      return this.ctx.records.lowerRecordStore(t, rhsNode as ts.Expression, node);
    }
    if (ts.isElementAccessExpression(t)) {
      // Through an array variable: one store per array it may hold, the value computed once.
      let once: IR.Expr | undefined;
      const viaVariable = this.ctx.arrayVars.lowerArrayVariableStore(t, (target) => this.storeElement(target, op, (once ??= rhs(target)), node, rhsNode), node);
      if (viaVariable) {
        if (!once) rhs();
        return viaVariable.stmt;
      }
      const target = this.ctx.expr.lowerElementAccess(t);
      if (!target || target.k !== "index") {
        if (target && !POISON.has(target)) this.ctx.report(Codes.InvalidAssignmentTarget, t, `'${t.getText(this.ctx.sf)}' is not an element: index every dimension of the array`);
        rhs();
        return undefined;
      }
      if (target.array.type.kind === "array" && target.array.type.space === "const") {
        this.ctx.report(Codes.WriteToConstMemory, t, "constant memory is read-only in kernels: copy the values into a local or shared array to change them");
      }
      return this.storeElement(target, op, rhs(target), node, rhsNode);
    }
    if (ts.isPropertyAccessExpression(t) && this.ctx.records.isRecordElement(stripParensAndNonNull(t.expression))) {
      // Through an array variable of records: one store per record array it may hold, the value computed once.
      let once: IR.Expr | undefined;
      const viaVariable = this.ctx.records.lowerChoiceFieldStore(t, (target) => this.storeElement(target, op, (once ??= rhs(target)), node, rhsNode), node);
      if (viaVariable) {
        if (!once) rhs();
        return viaVariable.stmt;
      }
      const target = this.ctx.records.lowerFieldAccess(t);
      if (!target || target.k !== "index") {
        rhs();
        return undefined;
      }
      return this.storeElement(target, op, rhs(target), node, rhsNode);
    }
    if (ts.isPropertyAccessExpression(t)) {
      const fv = this.ctx.records.fieldVariable(t);
      if (fv === "reported") {
        rhs();
        return undefined;
      }
      if (fv) {
        const target: IR.VarExpr = { k: "var", type: fv.v.type, v: fv.v, span: this.ctx.span(t) };
        let value = rhs(target);
        if (op !== "=") value = this.ctx.ops.arith(op, target, value, node);
        if (value.type.kind !== "scalar") return undefined;
        return { k: "assign", span, target, value: this.ctx.conv.convertImplicitly(value, (fv.v.type as ScalarType).dtype, `the field '${t.getText(this.ctx.sf)}'`, rhsNode ?? node, rhsNode) };
      }
      if (this.ctx.complex.complexPartAssignment(t)) {
        rhs();
        return undefined;
      }
      this.ctx.report(Codes.InvalidAssignmentTarget, t, `'${t.getText(this.ctx.sf)}' is read-only in kernels`);
      rhs();
      return undefined;
    }
    this.ctx.report(Codes.InvalidAssignmentTarget, t, "only local variables and array elements can be assigned in kernels");
    rhs();
    return undefined;
  }
}
