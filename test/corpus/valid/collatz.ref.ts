import { CorpusCase, randomI32 } from "../case";

function collatzCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `collatzSteps n=${n}, block=${block}`,
    // Starts in [1, 10000): every trajectory peaks below 2^31.
    setup: () => {
      const start = randomI32(n, seed, 1, 10000);
      start[0] = 1; // zero steps
      if (n > 1) start[1] = 27; // a long one (111 steps, peak 9232)
      return { start, steps: new Int32Array(n), peak: new Int32Array(n) };
    },
    launches: [{ kernel: "collatzSteps", grid: Math.ceil(n / block), block, args: ["start", "steps", "peak"] }],
    reference: (inp) => {
      const start = inp.start as Int32Array;
      const steps = new Int32Array(n), peak = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        let v = start[i], k = 0, top = v;
        while (v !== 1) {
          v = v % 2 === 0 ? v / 2 : 3 * v + 1;
          top = Math.max(top, v);
          k++;
        }
        steps[i] = k;
        peak[i] = top;
      }
      return { steps, peak };
    },
  };
}

function digitCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `digitStats n=${n}, block=${block}`,
    setup: () => {
      const x = randomI32(n, seed, -2000000000, 2000000000);
      for (let i = 0; i < n; i += 7) x[i] = (x[i] / 100000) | 0; // some short numbers
      x[0] = 0;
      if (n > 2) {
        x[1] = -9;
        x[2] = 2147483647;
      }
      return { x, digits: new Int32Array(n), sums: new Int32Array(n) };
    },
    launches: [{ kernel: "digitStats", grid: Math.ceil(n / block), block, args: ["x", "digits", "sums"] }],
    reference: (inp) => {
      const x = inp.x as Int32Array;
      const digits = new Int32Array(n), sums = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const s = String(Math.abs(x[i]));
        digits[i] = s.length;
        sums[i] = [...s].reduce((acc, d) => acc + Number(d), 0);
      }
      return { digits, sums };
    },
  };
}

export const cases: CorpusCase[] = [
  collatzCase(1000, 128, 211),
  collatzCase(64, 64, 212),
  digitCase(1000, 128, 213),
  digitCase(3, 32, 214),
];
