import { CorpusCase } from "../case";

function heatReference(initial: Float64Array, steps: number, k: number): { buf0: Float64Array; buf1: Float64Array } {
  const bufs = [Float64Array.from(initial), new Float64Array(initial.length)];
  const n = initial.length;
  for (let step = 0; step < steps; step++) {
    const data = bufs[step % 2]!, next = bufs[(step + 1) % 2]!;
    for (let i = 0; i < n; i++) {
      const curr = data[i]!;
      if (i === 0) next[i] = curr + k * (data[i + 1]! - 2 * curr);
      else if (i === n - 1) next[i] = curr + k * (data[i - 1]! - 2 * curr);
      else next[i] = curr + k * (data[i - 1]! - 2 * curr + data[i + 1]!);
    }
  }
  return { buf0: bufs[0]!, buf1: bufs[1]! };
}

function heatCase(n: number, grid: number, block: number, steps: number): CorpusCase {
  const initial = new Float64Array(n);
  initial[n >> 1] = 1000;
  initial[3] = 250;
  return {
    name: `heatSteps n=${n}, ${grid}×${block} threads, ${steps} steps${grid * block < n ? " (grid-stride)" : ""}`,
    setup: () => ({ buf0: Float64Array.from(initial), buf1: new Float64Array(n), steps, k: 0.25 }),
    launches: [{ kernel: "heatSteps", grid, block, args: ["buf0", "buf1", "steps", "k"] }],
    reference: () => heatReference(initial, steps, 0.25),
  };
}

function ringCase(nb: number, block: number, rounds: number): CorpusCase {
  return {
    name: `blockRing ${nb} blocks of ${block}, ${rounds} rounds`,
    setup: () => ({ published: new Int32Array(nb), seen: new Int32Array(nb * rounds), rounds }),
    launches: [{ kernel: "blockRing", grid: nb, block, args: ["published", "seen", "rounds"] }],
    reference: () => {
      const seen = new Int32Array(nb * rounds);
      for (let r = 0; r < rounds; r++) for (let b = 0; b < nb; b++) seen[r * nb + b] = (((b + nb - 1) % nb) + 1) * 100 + r;
      const published = new Int32Array(nb).map((_, b) => (b + 1) * 100 + rounds - 1);
      return { published, seen };
    },
  };
}

export const cases: CorpusCase[] = [heatCase(200, 3, 64, 41), heatCase(300, 2, 32, 30), ringCase(6, 32, 4)];
