import { cuda, f32, i32, Array2D } from "cudascript";

/** A 3 × 5 filter in constant memory: not square and not symmetric, so swapped indices show up. */
const TAPS_Y = 3;
const TAPS_X = 5;
const FILTER_2D = cuda.ndarray(
  new Float32Array([
    0.01, 0.02, 0.03, 0.04, 0.05,
    0.1, 0.2, 0.4, 0.15, 0.05,
    0.5, -0.25, 0.125, -0.0625, 0.03125,
  ]),
  [TAPS_Y, TAPS_X],
);

/** A 2 × 3 × 4 table whose data is another module constant. */
const CUBE_DATA = Int32Array.from([
  0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23,
  100, 101, 102, 103, 110, 111, 112, 113, 120, 121, 122, 123,
]);
const CUBE = cuda.ndarray(CUBE_DATA, [2, 3, 4]);

/** Row `r` of a 2-D array summed in a device function (the constant array passed as an argument). */
const rowSum = cuda.device((m: Array2D<f32>, r: i32): f32 => {
  let s: f32 = 0;
  for (let c = 0; c < m.shape[1]; c++) s += m[r][c];
  return s;
});

/**
 * 2-D correlation of `img` with FILTER_2D (samples outside the image are 0), plus each filter row's sum.
 * Compiled with launchBounds: launched with blocks of at most 256 threads.
 */
export const filter2dConst = cuda.jit((img: Array2D<f32>, out: Array2D<f32>, rowSums: Float32Array) => {
  const k = cuda.const.arrayLike(FILTER_2D);
  const [x, y] = cuda.grid(2);
  const h = img.shape[0];
  const w = img.shape[1];
  if (x === 0 && y < k.shape[0]) rowSums[y] = rowSum(k, y);
  if (y < h && x < w) {
    let acc: f32 = 0;
    for (let dy = 0; dy < k.shape[0]; dy++) {
      for (let dx = 0; dx < k.shape[1]; dx++) {
        const yy = y + dy - ((k.shape[0] / 2) | 0);
        const xx = x + dx - ((k.shape[1] / 2) | 0);
        if (yy >= 0 && yy < h && xx >= 0 && xx < w) acc += k[dy][dx] * img[yy][xx];
      }
    }
    out[y][x] = acc;
  }
}, { launchBounds: [256, 2] });

/** out[i] = CUBE[a][b][c] for the flat index idx[i] = (a * 3 + b) * 4 + c, and the table's shape. */
export const cubeLookup = cuda.jit((idx: Int32Array, out: Int32Array, shape: Int32Array) => {
  const c = cuda.const.arrayLike(CUBE);
  const i = cuda.grid(1);
  if (i === 0) {
    shape[0] = c.shape[0];
    shape[1] = c.shape[1];
    shape[2] = c.shape[2];
  }
  if (i < idx.length) {
    const f = idx[i];
    out[i] = c[(f / 12) | 0][((f / 4) | 0) % 3][f % 4];
  }
}, { launchBounds: 128 });
