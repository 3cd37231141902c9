// A barrel module: re-exports only, no kernels, no mistakes.
import type { f32 } from "cudascript";

export { TILE, frameCounter, luminance } from "./cs1010-helpers";
export { stagedSum } from "./cs3003-helpers";
export type Scalar = f32;
