// The simulator's libdevice: every function of compiler/src/intrinsics/libdevice-table.ts (Numba's
// cuda.libdevice), by Numba's name. The generated JavaScript calls `rt.libdevice.<name>(…)`.
// Values: f32/f64/i16/i32 are numbers (f32 results frounded, i32 results int32, i16 results wrapped to
// 16 bits), i64 values are bigints; a tuple result is an array in the table's `results` order.
import { CONVERSION } from "./conversion";
import { ELEMENTARY } from "./elementary";
import { FAST } from "./fast";
import { FLOAT } from "./float";
import { INTEGER } from "./integer";
import { ROUNDING } from "./rounding";
import { SPECIAL } from "./special";

export type LibdeviceValue = number | bigint;
/** One implementation; its arguments are the table's `params` in order. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LibdeviceImplementation = (...args: any[]) => LibdeviceValue | LibdeviceValue[];

export const LIBDEVICE: Readonly<Record<string, LibdeviceImplementation>> = Object.freeze({
  ...(ROUNDING as Record<string, LibdeviceImplementation>),
  ...(CONVERSION as Record<string, LibdeviceImplementation>),
  ...(INTEGER as Record<string, LibdeviceImplementation>),
  ...(FLOAT as Record<string, LibdeviceImplementation>),
  ...(ELEMENTARY as Record<string, LibdeviceImplementation>),
  ...(SPECIAL as Record<string, LibdeviceImplementation>),
  ...(FAST as Record<string, LibdeviceImplementation>),
});
