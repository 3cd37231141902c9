import { CorpusCase, nd, randomF32, seeded } from "../case";

function positivesCase(n: number, seed: number): CorpusCase {
  return {
    name: `positives n=${n}`,
    setup: () => ({ x: randomF32(n, seed), flags: new Uint8Array(n) }),
    launches: [{ kernel: "positives", grid: Math.ceil(n / 64), block: 64, args: ["x", "flags"] }],
    reference: (inp) => ({ flags: Uint8Array.from(inp.x as Float32Array, (v) => (v > 0 ? 1 : 0)) }),
  };
}

function randomBits(n: number, seed: number): Uint8Array {
  const r = seeded(seed);
  return Uint8Array.from({ length: n }, () => (r() < 0.5 ? 1 : 0));
}

function countRowsCase(rows: number, cols: number, seed: number): CorpusCase {
  return {
    name: `countRows ${rows}x${cols}`,
    setup: () => ({ mask: nd(randomBits(rows * cols, seed), [rows, cols]), keep: randomBits(cols, seed + 1), counts: new Int32Array(rows) }),
    launches: [{ kernel: "countRows", grid: Math.ceil(rows / 32), block: 32, args: ["mask", "keep", "counts"] }],
    reference: (inp) => {
      const mask = (inp.mask as { data: Uint8Array }).data, keep = inp.keep as Uint8Array;
      const counts = new Int32Array(rows);
      for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) if (mask[r * cols + c] && keep[c]) counts[r]!++;
      return { counts };
    },
  };
}

export const cases: CorpusCase[] = [positivesCase(500, 631), countRowsCase(70, 13, 632)];
