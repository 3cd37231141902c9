import { CorpusCase, HostNDArray, nd, randomF32 } from "../case";

const TILE = 16;

function matmul(a: HostNDArray, b: HostNDArray): HostNDArray {
  const [M, K] = a.shape;
  const N = b.shape[1];
  const out = new Float32Array(M * N);
  for (let r = 0; r < M; r++) {
    for (let c = 0; c < N; c++) {
      let s = 0;
      for (let k = 0; k < K; k++) s += a.data[r * K + k] * b.data[k * N + c];
      out[r * N + c] = s;
    }
  }
  return nd(out, [M, N]);
}

function tiled(M: number, K: number, N: number, seed: number): CorpusCase {
  return {
    name: `matmulTiled ${M}x${K} * ${K}x${N}`,
    setup: () => ({
      A: nd(randomF32(M * K, seed), [M, K]),
      B: nd(randomF32(K * N, seed + 1), [K, N]),
      C: nd(new Float32Array(M * N), [M, N]),
    }),
    launches: [
      {
        kernel: "matmulTiled",
        grid: [Math.ceil(N / TILE), Math.ceil(M / TILE)],
        block: [TILE, TILE],
        args: ["A", "B", "C"],
      },
    ],
    reference: (inp) => ({ C: matmul(inp.A as HostNDArray, inp.B as HostNDArray) }),
    tolerance: { abs: 1e-4, rel: 1e-4 },
  };
}

function naive(M: number, K: number, N: number, block: [number, number], seed: number): CorpusCase {
  return {
    name: `matmulNaive ${M}x${K} * ${K}x${N}, block ${block[0]}x${block[1]}`,
    setup: () => ({
      A: nd(randomF32(M * K, seed), [M, K]),
      B: nd(randomF32(K * N, seed + 1), [K, N]),
      C: nd(new Float32Array(M * N), [M, N]),
    }),
    launches: [
      {
        kernel: "matmulNaive",
        grid: [Math.ceil(M / block[0]), Math.ceil(N / block[1])],
        block,
        args: ["A", "B", "C"],
      },
    ],
    reference: (inp) => ({ C: matmul(inp.A as HostNDArray, inp.B as HostNDArray) }),
    tolerance: { abs: 1e-4, rel: 1e-4 },
  };
}

export const cases: CorpusCase[] = [
  tiled(64, 64, 64, 31),
  tiled(50, 37, 45, 32),
  tiled(5, 70, 3, 33),
  naive(33, 20, 17, [8, 8], 34),
];
