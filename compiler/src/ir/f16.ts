/**
 * Half precision (f16) rounding for the compiler's constant folding and literals: the platform's
 * Math.f16round (ES2025) where Node has it, else the @petamoriken/float16 polyfill's, which rounds the same
 * way (IEEE 754 binary16, round to nearest even). Kept in one place so every part of the compiler
 * rounds f16 constants alike.
 */
import { f16round as polyfillF16round, setFloat16 } from "@petamoriken/float16";

const native = (Math as { f16round?: (x: number) => number }).f16round;

/** `x` rounded to the nearest f16 (binary16) value. */
export const f16round: (x: number) => number = typeof native === "function" ? native : polyfillF16round;

/** The binary16 bit pattern of `x` rounded to f16 (NaN: the canonical quiet NaN 0x7e00). */
export function f16Bits(x: number): number {
  const view = new DataView(new ArrayBuffer(2));
  setFloat16(view, 0, x);
  return view.getUint16(0);
}
