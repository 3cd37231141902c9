import { f16round, Float16Array } from "cudascript";
import { CorpusCase, nd, seeded } from "../case";

/** Random f16 values in [lo, hi): what a host would store in a Float16Array. */
function randomF16(n: number, seed: number, lo = -1, hi = 1): Float16Array {
  const r = seeded(seed);
  const a = new Float16Array(n);
  for (let i = 0; i < n; i++) a[i] = lo + (hi - lo) * r();
  return a;
}

// The references round to f16 after every operation, as the kernels' f16 arithmetic does.
const h = f16round;

function axpyCase(n: number, block: number, seed: number): CorpusCase {
  const a = h(1.7);
  return {
    name: `halfAxpy n=${n}, block=${block}`,
    setup: () => ({ a, x: randomF16(n, seed, -30, 30), y: randomF16(n, seed + 1, -30, 30), out: new Float16Array(n) }),
    launches: [{ kernel: "halfAxpy", grid: Math.ceil(n / block), block, args: ["a", "x", "y", "out"] }],
    reference: (inp) => {
      const x = inp.x as Float16Array, y = inp.y as Float16Array;
      const out = new Float16Array(n);
      for (let i = 0; i < n; i++) out[i] = h(h(a * x[i]!) + y[i]!);
      return { out };
    },
  };
}

function mixCase(n: number, seed: number): CorpusCase {
  const block = 64;
  return {
    name: `halfMix n=${n}`,
    setup: () => {
      const x = randomF16(n, seed, -2, 2);
      return { x, flags: new Int32Array(n), wide: new Float32Array(n), h: new Float16Array(n) };
    },
    launches: [{ kernel: "halfMix", grid: Math.ceil(n / block), block, args: ["x", "flags", "wide", "h"] }],
    reference: (inp) => {
      const x = inp.x as Float16Array;
      const flags = new Int32Array(n), wide = new Float32Array(n), out = new Float16Array(n);
      for (let i = 0; i < n; i++) {
        const t = i % block;
        const v = x[i]!;
        const next = t + 1 < block && i + 1 < n ? x[i + 1]! : t + 1 < block ? 0 : x[i - t]!;
        const parts = [h(Math.sqrt(Math.abs(v))), Math.floor(h(v * 3)), Math.max(v, next)];
        let acc = 0;
        for (const p of parts) acc = h(acc + p);
        flags[i] = (v < 0.5 ? 1 : 0) + (v === parts[2] ? 2 : 0) + (h(i) > v ? 4 : 0) + (v !== v ? 8 : 0);
        wide[i] = Math.fround(v * Math.fround(0.1));
        out[i] = h(h(h(h(wide[i]!) / 3) + acc) - t);
      }
      return { flags, wide, h: out };
    },
  };
}

function transposeCase(rows: number, cols: number): CorpusCase {
  return {
    name: `halfTranspose ${rows}x${cols}`,
    setup: () => ({ m: nd(randomF16(rows * cols, 7, -100, 100), [rows, cols]), out: nd(new Float16Array(rows * cols), [cols, rows]) }),
    launches: [{ kernel: "halfTranspose", grid: [Math.ceil(rows / 8), Math.ceil(cols / 8)], block: [8, 8], args: ["m", "out"] }],
    reference: (inp) => {
      const m = (inp.m as { data: Float16Array }).data;
      const out = new Float16Array(rows * cols);
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = -m[r * cols + c]!;
      return { out: nd(out, [cols, rows]) };
    },
  };
}

export const cases: CorpusCase[] = [axpyCase(1000, 128, 401), axpyCase(64, 64, 402), mixCase(200, 403), transposeCase(13, 21)];
