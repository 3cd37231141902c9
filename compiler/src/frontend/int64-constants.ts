/**
 * Constant folding of bigint (i64) expressions: `3600n * 24n`, `-1n`, `1n << 40n`. Exact, wrapping
 * modulo 2^64 as i64 (what the kernel computes); a bigint mixed with a number is not a constant (the
 * lowerer reports it as CS2018, as TypeScript refuses it).
 */
import ts from "typescript";

/** The value of a `123n` literal (underscores and 0x/0b/0o prefixes allowed, as TypeScript does). */
export function bigintLiteralValue(lit: ts.BigIntLiteral): bigint {
  return BigInt(lit.text.replace(/_/g, "").replace(/n$/, ""));
}

/** `op` of two bigint constants as i64 (undefined: not folded, e.g. division by zero or `>>>`). */
export function foldBigIntBinary(op: ts.SyntaxKind, a: bigint, b: bigint): bigint | boolean | undefined {
  const wrap = (v: bigint) => BigInt.asIntN(64, v);
  switch (op) {
    case ts.SyntaxKind.PlusToken:
      return wrap(a + b);
    case ts.SyntaxKind.MinusToken:
      return wrap(a - b);
    case ts.SyntaxKind.AsteriskToken:
      return wrap(a * b);
    case ts.SyntaxKind.SlashToken:
      return b === 0n ? undefined : wrap(a / b);
    case ts.SyntaxKind.PercentToken:
      return b === 0n ? undefined : wrap(a % b);
    case ts.SyntaxKind.AmpersandToken:
      return wrap(a & b);
    case ts.SyntaxKind.BarToken:
      return wrap(a | b);
    case ts.SyntaxKind.CaretToken:
      return wrap(a ^ b);
    // Counts outside 0…63 fold as the kernel computes them (int64.ts shl64/shr64): 0 or the sign.
    case ts.SyntaxKind.LessThanLessThanToken:
      return b < 0n || b > 63n ? 0n : wrap(a << b);
    case ts.SyntaxKind.GreaterThanGreaterThanToken:
      return b < 0n || b > 63n ? (a < 0n ? -1n : 0n) : a >> b;
    case ts.SyntaxKind.LessThanToken:
      return a < b;
    case ts.SyntaxKind.LessThanEqualsToken:
      return a <= b;
    case ts.SyntaxKind.GreaterThanToken:
      return a > b;
    case ts.SyntaxKind.GreaterThanEqualsToken:
      return a >= b;
    case ts.SyntaxKind.EqualsEqualsEqualsToken:
    case ts.SyntaxKind.EqualsEqualsToken:
      return a === b;
    case ts.SyntaxKind.ExclamationEqualsEqualsToken:
    case ts.SyntaxKind.ExclamationEqualsToken:
      return a !== b;
    default:
      return undefined;
  }
}
