import { CorpusCase, randomF32 } from "../case";

const TPB = 64;
const SOFTENING = Math.fround(0.01);

function nbodyCase(n: number, seed: number): CorpusCase {
  return {
    name: `nbodyAccel n=${n}${n % TPB ? ", partial last block" : ""}`,
    setup: () => ({
      px: randomF32(n, seed),
      py: randomF32(n, seed + 1),
      pz: randomF32(n, seed + 2),
      mass: randomF32(n, seed + 3, 0.5, 1),
      ax: new Float32Array(n),
      ay: new Float32Array(n),
      az: new Float32Array(n),
    }),
    launches: [
      {
        kernel: "nbodyAccel",
        grid: Math.ceil(n / TPB),
        block: TPB,
        args: ["px", "py", "pz", "mass", "ax", "ay", "az"],
      },
    ],
    reference: (inp) => {
      const px = inp.px as Float32Array, py = inp.py as Float32Array, pz = inp.pz as Float32Array;
      const m = inp.mass as Float32Array;
      const ax = new Float32Array(n), ay = new Float32Array(n), az = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        let sx = 0, sy = 0, sz = 0;
        for (let j = 0; j < n; j++) {
          const dx = px[j] - px[i], dy = py[j] - py[i], dz = pz[j] - pz[i];
          const d2 = dx * dx + dy * dy + dz * dz + SOFTENING;
          const s = m[j] / (d2 * Math.sqrt(d2));
          sx += dx * s;
          sy += dy * s;
          sz += dz * s;
        }
        ax[i] = sx;
        ay[i] = sy;
        az[i] = sz;
      }
      return { ax, ay, az };
    },
    // Sums of up to n terms of size up to ~40 with cancellation, accumulated in f32.
    tolerance: { abs: 2e-3, rel: 1e-3 },
  };
}

export const cases: CorpusCase[] = [nbodyCase(200, 91), nbodyCase(256, 92), nbodyCase(5, 93)];
