// Shared configuration module. It has no kernels and no mistakes of its own; what matters is how
// kernels in other files use its exports.
import { cuda, f32 } from "cudascript";

/** Compile-time constants: fine in kernels, also as array sizes. */
export const TILE = 16;
export const HALO = 1;
export const TILE_WITH_HALO = TILE + 2 * HALO;

/** Mutable host state. */
export let frameCounter = 0;
export function nextFrame(): number {
  return ++frameCounter;
}

/** Computed on the host at load time: not a compile-time constant. */
export const startedAt = Date.now();

/** A constant typed array for cuda.const.arrayLike. */
export const SOBEL_X = new Float32Array([-1, 0, 1, -2, 0, 2, -1, 0, 1]);

export const luminance = cuda.device((r: f32, g: f32, b: f32): f32 => 0.2126 * r + 0.7152 * g + 0.0722 * b);
