import { cuda, f32, i32, Array2D } from "cudascript";

const TILE = 8;

/** A mistake deep inside nested loops and branches is still found on its own line. */
export const blockedStats = cuda.jit((m: Array2D<f32>, out: Array2D<f32>, passes: i32) => {
  const [r, c] = cuda.grid(2);
  if (r >= m.shape[0] || c >= m.shape[1]) return;
  let acc: f32 = 0;
  for (let p = 0; p < passes; p++) {
    for (let dr = 0; dr < TILE; dr++) {
      let dc = 0;
      while (dc < TILE) {
        const rr = r + dr;
        const cc = c + dc;
        if (rr < m.shape[0] && cc < m.shape[1]) {
          if (p % 2 === 0) {
            acc += m[rr][cc];
          } else {
            do {
              acc -= m[rr][cc / 2]; // @expect CS2002
            } while (acc > 1000);
          }
        }
        dc++;
      }
    }
  }
  out[r][c] = acc;
});
