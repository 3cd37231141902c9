/**
 * Compile-time constant folding, exact as JavaScript computes it, with one rule more: values derived
 * only from integer literals are integer constants and must stay within 32-bit range (i32 or u32), so
 * that a constant means the same on the GPU as in JavaScript. Folding never throws.
 */
import ts from "typescript";
import { bigintLiteralValue, foldBigIntBinary } from "./int64-constants";

export interface ConstValue {
  /** A bigint for i64 constants (`3600n`), never mixed with numbers. */
  readonly value: number | boolean | bigint;
  /** True when the value came from integer literals through integer operations (an "int constant"). */
  readonly isInt: boolean;
}

export type ConstProblem =
  | { kind: "overflow"; node: ts.Node; value: number }
  | { kind: "divisionByZero"; node: ts.Node };

/** How the folder sees a name: a constant, or not a constant (undefined). */
export type ConstLookup = (name: string, node: ts.Identifier) => ConstValue | undefined;

const INT_MIN = -2147483648;
const UINT_MAX = 4294967295;

export function isIntegerLiteralText(text: string): boolean {
  // 0x1F, 0b101, 0o17, 123 — but not 1.0, 1e3, 1.5
  return /^(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|[0-9_]+)$/.test(text);
}

export const MATH_CONSTANTS: Readonly<Record<string, number>> = {
  PI: Math.PI,
  E: Math.E,
  LN2: Math.LN2,
  LN10: Math.LN10,
  LOG2E: Math.LOG2E,
  LOG10E: Math.LOG10E,
  SQRT2: Math.SQRT2,
  SQRT1_2: Math.SQRT1_2,
};

export class ConstantFolder {
  readonly problems: ConstProblem[] = [];

  constructor(
    private readonly lookup: ConstLookup,
    private readonly isMathObject: (node: ts.Identifier) => boolean = (n) => n.text === "Math",
  ) {}

  fold(e: ts.Expression): ConstValue | undefined {
    switch (e.kind) {
      case ts.SyntaxKind.NumericLiteral: {
        const lit = e as ts.NumericLiteral;
        const value = Number(lit.text.replace(/_/g, ""));
        const isInt = isIntegerLiteralText(lit.text) && value <= UINT_MAX;
        return { value, isInt };
      }
      case ts.SyntaxKind.BigIntLiteral:
        return { value: bigintLiteralValue(e as ts.BigIntLiteral), isInt: true };
      case ts.SyntaxKind.TrueKeyword:
        return { value: true, isInt: false };
      case ts.SyntaxKind.FalseKeyword:
        return { value: false, isInt: false };
      case ts.SyntaxKind.ParenthesizedExpression:
      case ts.SyntaxKind.AsExpression:
      case ts.SyntaxKind.SatisfiesExpression:
      case ts.SyntaxKind.NonNullExpression:
        return this.fold((e as ts.ParenthesizedExpression).expression);
      case ts.SyntaxKind.Identifier:
        return this.lookup((e as ts.Identifier).text, e as ts.Identifier);
      case ts.SyntaxKind.PropertyAccessExpression: {
        const pa = e as ts.PropertyAccessExpression;
        if (ts.isIdentifier(pa.expression) && this.isMathObject(pa.expression) && pa.name.text in MATH_CONSTANTS)
          return { value: MATH_CONSTANTS[pa.name.text]!, isInt: false };
        return undefined;
      }
      case ts.SyntaxKind.PrefixUnaryExpression:
        return this.foldPrefix(e as ts.PrefixUnaryExpression);
      case ts.SyntaxKind.BinaryExpression:
        return this.foldBinary(e as ts.BinaryExpression);
      case ts.SyntaxKind.ConditionalExpression: {
        const c = e as ts.ConditionalExpression;
        const cond = this.fold(c.condition);
        if (!cond) return undefined;
        // Only the branch taken is folded: `HALO > 0 ? (TILE / HALO) | 0 : 1` is fine when HALO is 0.
        return this.fold(cond.value ? c.whenTrue : c.whenFalse);
      }
      case ts.SyntaxKind.CallExpression:
        return this.foldMathCall(e as ts.CallExpression);
      default:
        return undefined;
    }
  }

  private foldPrefix(e: ts.PrefixUnaryExpression): ConstValue | undefined {
    const v = this.fold(e.operand);
    if (!v) return undefined;
    if (typeof v.value === "bigint") {
      if (e.operator === ts.SyntaxKind.MinusToken) return { value: BigInt.asIntN(64, -v.value), isInt: true };
      if (e.operator === ts.SyntaxKind.TildeToken) return { value: ~v.value, isInt: true };
      if (e.operator === ts.SyntaxKind.ExclamationToken) return { value: !v.value, isInt: false };
      return undefined; // unary + of a bigint is a TypeError
    }
    const n = Number(v.value);
    switch (e.operator) {
      case ts.SyntaxKind.MinusToken:
        return this.checked(e, -n, v.isInt);
      case ts.SyntaxKind.PlusToken:
        return { value: n, isInt: v.isInt };
      case ts.SyntaxKind.TildeToken:
        return { value: ~n, isInt: true };
      case ts.SyntaxKind.ExclamationToken:
        return { value: !v.value, isInt: false };
      default:
        return undefined;
    }
  }

  private foldBinary(e: ts.BinaryExpression): ConstValue | undefined {
    const op = e.operatorToken.kind;
    // `(a / b) | 0` on integer constants is integer division: fold it as such, and catch b === 0.
    if (op === ts.SyntaxKind.BarToken && isIntDivisionPattern(e)) {
      const div = stripParensAndNonNull(e.left) as ts.BinaryExpression;
      const a = this.fold(div.left), b = this.fold(div.right);
      const zero = this.fold(e.right);
      if (a && b && zero && a.isInt && b.isInt) {
        if (Number(b.value) === 0) {
          this.problems.push({ kind: "divisionByZero", node: div });
          return undefined;
        }
        return { value: (Number(a.value) / Number(b.value)) | 0, isInt: true };
      }
    }
    const a = this.fold(e.left);
    if (!a) return undefined;
    const b = this.fold(e.right);
    if (!b) return undefined;
    if (typeof a.value === "bigint" || typeof b.value === "bigint") {
      if (typeof a.value !== "bigint" || typeof b.value !== "bigint") return undefined; // bigint ⊕ number: CS2018
      if ((op === ts.SyntaxKind.SlashToken || op === ts.SyntaxKind.PercentToken) && b.value === 0n) {
        this.problems.push({ kind: "divisionByZero", node: e });
        return undefined;
      }
      const v = foldBigIntBinary(op, a.value, b.value);
      return v === undefined ? undefined : { value: v, isInt: typeof v === "bigint" };
    }
    const x = Number(a.value), y = Number(b.value);
    const bothInt = a.isInt && b.isInt;
    switch (op) {
      case ts.SyntaxKind.PlusToken:
        return this.checked(e, x + y, bothInt);
      case ts.SyntaxKind.MinusToken:
        return this.checked(e, x - y, bothInt);
      case ts.SyntaxKind.AsteriskToken:
        return this.checked(e, x * y, bothInt);
      case ts.SyntaxKind.SlashToken: {
        const q = x / y;
        if (bothInt && y === 0) {
          this.problems.push({ kind: "divisionByZero", node: e });
          return undefined;
        }
        return { value: q, isInt: false };
      }
      case ts.SyntaxKind.PercentToken:
        if (bothInt && y === 0) {
          this.problems.push({ kind: "divisionByZero", node: e });
          return undefined;
        }
        return { value: x % y, isInt: bothInt };
      case ts.SyntaxKind.AsteriskAsteriskToken:
        return undefined; // `**` is not part of the kernel language (CS1013)
      case ts.SyntaxKind.BarToken:
        return { value: x | y, isInt: true };
      case ts.SyntaxKind.AmpersandToken:
        return { value: x & y, isInt: true };
      case ts.SyntaxKind.CaretToken:
        return { value: x ^ y, isInt: true };
      case ts.SyntaxKind.LessThanLessThanToken:
        return { value: x << y, isInt: true };
      case ts.SyntaxKind.GreaterThanGreaterThanToken:
        return { value: x >> y, isInt: true };
      case ts.SyntaxKind.GreaterThanGreaterThanGreaterThanToken:
        return { value: x >>> y, isInt: true };
      case ts.SyntaxKind.LessThanToken:
        return { value: x < y, isInt: false };
      case ts.SyntaxKind.LessThanEqualsToken:
        return { value: x <= y, isInt: false };
      case ts.SyntaxKind.GreaterThanToken:
        return { value: x > y, isInt: false };
      case ts.SyntaxKind.GreaterThanEqualsToken:
        return { value: x >= y, isInt: false };
      case ts.SyntaxKind.EqualsEqualsEqualsToken:
      case ts.SyntaxKind.EqualsEqualsToken:
        return { value: a.value === b.value, isInt: false };
      case ts.SyntaxKind.ExclamationEqualsEqualsToken:
      case ts.SyntaxKind.ExclamationEqualsToken:
        return { value: a.value !== b.value, isInt: false };
      case ts.SyntaxKind.AmpersandAmpersandToken:
        return a.value ? b : a;
      case ts.SyntaxKind.BarBarToken:
        return a.value ? a : b;
      default:
        return undefined;
    }
  }

  private foldMathCall(e: ts.CallExpression): ConstValue | undefined {
    const callee = e.expression;
    if (!ts.isPropertyAccessExpression(callee) || !ts.isIdentifier(callee.expression) || !this.isMathObject(callee.expression)) return undefined;
    const fname = callee.name.text;
    const args: ConstValue[] = [];
    for (const a of e.arguments) {
      const v = this.fold(a);
      if (!v) return undefined;
      args.push(v);
    }
    const nums = args.map((a) => Number(a.value));
    const allInt = args.every((a) => a.isInt);
    switch (fname) {
      case "min":
        return args.length ? { value: Math.min(...nums), isInt: allInt } : undefined;
      case "max":
        return args.length ? { value: Math.max(...nums), isInt: allInt } : undefined;
      case "abs":
        return args.length === 1 ? this.checked(e, Math.abs(nums[0]!), allInt) : undefined;
      case "floor":
      case "ceil":
      case "round":
      case "trunc":
        if (args.length !== 1) return undefined;
        // Math.trunc(a / b) on integer constants is integer division.
        if (fname === "trunc" && ts.isBinaryExpression(stripParensAndNonNull(e.arguments[0]!)) ) {
          const div = stripParensAndNonNull(e.arguments[0]!) as ts.BinaryExpression;
          if (div.operatorToken.kind === ts.SyntaxKind.SlashToken) {
            const a = this.fold(div.left), b = this.fold(div.right);
            if (a?.isInt && b?.isInt) return { value: Math.trunc(Number(a.value) / Number(b.value)), isInt: true };
          }
        }
        return { value: Math[fname](nums[0]!), isInt: allInt };
      case "sqrt":
      case "log2":
      case "exp":
      case "log":
        return args.length === 1 ? { value: Math[fname](nums[0]!), isInt: false } : undefined;
      default:
        return undefined;
    }
  }

  private checked(node: ts.Node, value: number, isInt: boolean): ConstValue {
    if (isInt && (value < INT_MIN || value > UINT_MAX || !Number.isInteger(value))) {
      this.problems.push({ kind: "overflow", node, value });
    }
    return { value, isInt };
  }
}

/**
 * The expression without its parentheses and non-null assertions (`(m[r]!)[c]!` → the access): TypeScript
 * erases `!`, and TypeScript's strictest settings (noUncheckedIndexedAccess) make users write it after
 * indexing, so every syntactic pattern the front end matches must see through it as through parentheses.
 */
export function stripParensAndNonNull(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  return e;
}

/** `(a / b) | 0`: JavaScript's integer-division idiom. */
export function isIntDivisionPattern(e: ts.BinaryExpression): boolean {
  if (e.operatorToken.kind !== ts.SyntaxKind.BarToken) return false;
  const right = stripParensAndNonNull(e.right);
  if (!ts.isNumericLiteral(right) || Number(right.text) !== 0) return false;
  const left = stripParensAndNonNull(e.left);
  return ts.isBinaryExpression(left) && left.operatorToken.kind === ts.SyntaxKind.SlashToken;
}
