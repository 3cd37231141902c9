// Helper module with no mistakes: a device function, a plain host function and a constant.
import { cuda, f32 } from "cudascript";

export const EPS = 1e-6;

/** Device version: callable from kernels. */
export const safeDiv = cuda.device((a: f32, b: f32): f32 => (Math.abs(b) > EPS ? a / b : 0));

/** Host version: a plain function, only for host code. */
export function safeDivHost(a: number, b: number): number {
  return Math.abs(b) > EPS ? a / b : 0;
}

/** A plain arrow, also host only. */
export const square = (v: number): number => v * v;
