import { cuda, Array3D, f32, i32 } from "cudascript";

/** A flat row-major matrix indexed as if it were 2-D. */
export const scaleMatrix = cuda.jit((m: Float32Array, s: f32) => {
  const [r, c] = cuda.grid(2);
  const cols = 64;
  if (r * cols + c < m.length) {
    m[r][c] *= s; // @expect CS2008
  }
});

/** A volume indexed with only two of its three indices where a number is needed (v[z][0] is a row). */
export const planeSum = cuda.jit((v: Array3D<f32>, out: Float32Array) => {
  const z = cuda.grid(1);
  if (z >= v.shape[0]) return;
  out[z] = v[z][0]; // @expect CS2008
});

export const scaleMatrixOk = cuda.jit((m: Float32Array, cols: i32, s: f32) => {
  const [r, c] = cuda.grid(2);
  if (c < cols && r * cols + c < m.length) {
    m[r * cols + c] *= s;
  }
});

export const planeSumOk = cuda.jit((v: Array3D<f32>, out: Float32Array) => {
  const z = cuda.grid(1);
  if (z >= v.shape[0]) return;
  let s: f32 = 0;
  for (let y = 0; y < v.shape[1]; y++) {
    for (let x = 0; x < v.shape[2]; x++) s += v[z][y][x];
  }
  out[z] = s;
});
