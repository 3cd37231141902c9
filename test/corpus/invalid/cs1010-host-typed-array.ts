import { cuda, f32 } from "cudascript";

/** A lookup table filled on the host at startup: its contents can change, so kernels cannot capture it. */
const GAMMA_LUT = new Float32Array(256);
for (let k = 0; k < 256; k++) GAMMA_LUT[k] = Math.pow(k / 255, 2.2);

export const gammaCorrect = cuda.jit((img: Uint8Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = GAMMA_LUT[img[i]]; // @expect CS1010
  }
});

/** Pass the table as a kernel argument. */
export const gammaCorrectOk = cuda.jit((img: Uint8Array, lut: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const v: f32 = lut[img[i]];
    out[i] = v;
  }
});

export function run(img: Uint8Array): Float32Array {
  const out = new Float32Array(img.length);
  gammaCorrectOk.launch(Math.ceil(img.length / 256), 256)(img, GAMMA_LUT, out);
  return out;
}
