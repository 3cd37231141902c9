import { CorpusCase, randomF32 } from "../case";

const TPB = 128;

function blockSums(x: Float32Array): Float32Array {
  const blocks = Math.ceil(x.length / TPB);
  const out = new Float32Array(blocks);
  for (let b = 0; b < blocks; b++) {
    let s = 0;
    for (let i = b * TPB; i < Math.min(x.length, (b + 1) * TPB); i++) s += x[i];
    out[b] = s;
  }
  return out;
}

/** One launch: partial sums only. */
function single(n: number, seed: number): CorpusCase {
  const blocks = Math.ceil(n / TPB);
  return {
    name: `blockSum n=${n}, ${blocks} blocks${n % TPB ? ", partial last block" : ""}`,
    setup: () => ({ x: randomF32(n, seed), partial: new Float32Array(blocks) }),
    launches: [{ kernel: "blockSum", grid: blocks, block: TPB, args: ["x", "partial"] }],
    reference: (inp) => ({ partial: blockSums(inp.x as Float32Array) }),
    tolerance: { abs: 1e-4, rel: 1e-4 },
  };
}

/** Two launches: the partial sums are reduced again by the same kernel. */
function twoPass(n: number, seed: number): CorpusCase {
  const blocks = Math.ceil(n / TPB);
  const blocks2 = Math.ceil(blocks / TPB);
  return {
    name: `blockSum two passes n=${n} (${blocks} then ${blocks2} blocks)`,
    setup: () => ({ x: randomF32(n, seed), partial: new Float32Array(blocks), total: new Float32Array(blocks2) }),
    launches: [
      { kernel: "blockSum", grid: blocks, block: TPB, args: ["x", "partial"] },
      { kernel: "blockSum", grid: blocks2, block: TPB, args: ["partial", "total"] },
    ],
    reference: (inp) => {
      const partial = blockSums(inp.x as Float32Array);
      return { partial, total: blockSums(partial) };
    },
    tolerance: { abs: 1e-3, rel: 1e-4 },
  };
}

export const cases: CorpusCase[] = [single(1000, 21), twoPass(128 * 40, 22), twoPass(20000, 23)];
