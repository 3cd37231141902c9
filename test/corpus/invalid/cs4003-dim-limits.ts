import { cuda, f32, Array3D } from "cudascript";

export const clearVolume = cuda.jit((v: Array3D<f32>) => {
  const [x, y, z] = cuda.grid(3);
  if (x < v.shape[0] && y < v.shape[1] && z < v.shape[2]) v[x][y][z] = 0;
});

export function run(v: Array3D<f32>): void {
  clearVolume.launch([1, 70000], 32)(v); // @expect CS4003
  clearVolume.launch(1, [1, 1, 128])(v); // @expect CS4003
  clearVolume.launch([4, 4, 100000], [8, 8, 4])(v); // @expect CS4003
  // Large x is fine: up to 2^31 - 1 blocks.
  clearVolume.launch([100000, 4, 4], [8, 8, 4])(v);
}
