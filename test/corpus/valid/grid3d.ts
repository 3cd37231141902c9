import { cuda, f32, Array3D } from "cudascript";

/** out[i][j][k] = s * a[i][j][k] + (100 i + 10 j + k); grid x covers dim 0, y dim 1, z dim 2. */
export const affine3d = cuda.jit((a: Array3D<f32>, out: Array3D<f32>, s: f32) => {
  const [i, j, k] = cuda.grid(3);
  if (i < a.shape[0] && j < a.shape[1] && k < a.shape[2]) {
    out[i][j][k] = s * a[i][j][k] + (i * 100 + j * 10 + k);
  }
});

/** 7-point Laplacian on interior points; boundary points are copied unchanged. */
export const laplace3d = cuda.jit((a: Array3D<f32>, out: Array3D<f32>) => {
  const [i, j, k] = cuda.grid(3);
  const d0 = a.shape[0];
  const d1 = a.shape[1];
  const d2 = a.shape[2];
  if (i >= d0 || j >= d1 || k >= d2) {
    return;
  }
  if (i === 0 || j === 0 || k === 0 || i === d0 - 1 || j === d1 - 1 || k === d2 - 1) {
    out[i][j][k] = a[i][j][k];
  } else {
    out[i][j][k] =
      a[i - 1][j][k] + a[i + 1][j][k] + a[i][j - 1][k] + a[i][j + 1][k] + a[i][j][k - 1] + a[i][j][k + 1] -
      6 * a[i][j][k];
  }
});
