import { CorpusCase, nd } from "../case";

const MAX_ITER = 64;

// View parameters use dyadic steps so every c is exact; the chosen views were checked to be stable
// under perturbations of the iteration (FMA contraction, rounding differences) of ~1e-12.
function escapeTime(cr: number, ci: number): number {
  let zr = 0, zi = 0;
  for (let k = 0; k < MAX_ITER; k++) {
    const zr2 = zr * zr, zi2 = zi * zi;
    if (zr2 + zi2 > 4) return k;
    zi = 2 * zr * zi + ci;
    zr = zr2 - zi2 + cr;
  }
  return MAX_ITER;
}

function image(w: number, h: number, x0: number, y0: number, dx: number, dy: number): Int32Array {
  const out = new Int32Array(w * h);
  for (let r = 0; r < h; r++) for (let c = 0; c < w; c++) out[r * w + c] = escapeTime(x0 + c * dx, y0 + r * dy);
  return out;
}

interface View {
  readonly w: number;
  readonly h: number;
  readonly x0: number;
  readonly y0: number;
  readonly dx: number;
  readonly dy: number;
}

const VIEWS: readonly View[] = [
  { w: 64, h: 48, x0: -2.5, y0: -1.5, dx: 1 / 16, dy: 1 / 16 },
  { w: 40, h: 30, x0: -0.875, y0: 0.0625, dx: 1 / 128, dy: 1 / 128 },
];

function grid2(v: View, block: [number, number]): CorpusCase {
  return {
    name: `mandelbrot ${v.w}x${v.h} at (${v.x0}, ${v.y0}), block ${block[0]}x${block[1]}`,
    setup: () => ({ x0: v.x0, y0: v.y0, dx: v.dx, dy: v.dy, counts: nd(new Int32Array(v.w * v.h), [v.h, v.w]) }),
    launches: [
      {
        kernel: "mandelbrot",
        grid: [Math.ceil(v.w / block[0]), Math.ceil(v.h / block[1])],
        block,
        args: ["x0", "y0", "dx", "dy", "counts"],
      },
    ],
    reference: () => ({ counts: nd(image(v.w, v.h, v.x0, v.y0, v.dx, v.dy), [v.h, v.w]) }),
  };
}

function flat(v: View, block: number): CorpusCase {
  const n = v.w * v.h;
  return {
    name: `mandelbrotFlat ${v.w}x${v.h}, block=${block}`,
    setup: () => ({ x0: v.x0, y0: v.y0, dx: v.dx, dy: v.dy, w: v.w, counts: new Int32Array(n) }),
    launches: [{ kernel: "mandelbrotFlat", grid: Math.ceil(n / block), block, args: ["x0", "y0", "dx", "dy", "w", "counts"] }],
    reference: () => ({ counts: image(v.w, v.h, v.x0, v.y0, v.dx, v.dy) }),
  };
}

export const cases: CorpusCase[] = [grid2(VIEWS[0], [16, 16]), grid2(VIEWS[1], [8, 4]), flat(VIEWS[0], 128)];
