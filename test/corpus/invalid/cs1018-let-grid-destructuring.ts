import { cuda, Array2D, f32 } from "cudascript";

/** Grid-stride 2-D fill: `let` destructuring of cuda.grid(2) so the indices can be advanced (valid). */
export const fillStrided = cuda.jit((out: Array2D<f32>, v: f32) => {
  let [r, c] = cuda.grid(2); // let-destructuring is allowed: r advances below
  const [sr, sc] = cuda.gridsize(2);
  for (; r < out.shape[0]; r += sr) {
    for (let cc = c; cc < out.shape[1]; cc += sc) out[r][cc] = v;
  }
});

/** Destructure into consts, then copy into loop variables. */
export const fillStridedOk = cuda.jit((out: Array2D<f32>, v: f32) => {
  const [r0, c0] = cuda.grid(2);
  const [sr, sc] = cuda.gridsize(2);
  for (let r = r0; r < out.shape[0]; r += sr) {
    for (let c = c0; c < out.shape[1]; c += sc) out[r][c] = v;
  }
});
