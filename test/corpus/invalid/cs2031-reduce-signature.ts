import { cuda, f32, i32 } from "cudascript";

/** cuda.reduce folds values of one type: (a: T, b: T): T. */
export const mixed = cuda.reduce((a: f32, b: i32): f32 => a + b); // @expect CS2031
export const fma = cuda.reduce((a: f32, b: f32, c: f32): f32 => a * b + c); // @expect CS2031
