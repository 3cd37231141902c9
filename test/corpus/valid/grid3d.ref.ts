import { CorpusCase, HostNDArray, nd, randomF32 } from "../case";

type Dims = [number, number, number];

function launchGrid(shape: Dims, block: Dims): Dims {
  return [Math.ceil(shape[0] / block[0]), Math.ceil(shape[1] / block[1]), Math.ceil(shape[2] / block[2])];
}

function affineCase(shape: Dims, block: Dims, seed: number): CorpusCase {
  const [d0, d1, d2] = shape;
  const n = d0 * d1 * d2;
  const s = -2;
  return {
    name: `affine3d ${shape.join("x")}, block ${block.join("x")}`,
    setup: () => ({ a: nd(randomF32(n, seed), shape), out: nd(new Float32Array(n), shape), s }),
    launches: [{ kernel: "affine3d", grid: launchGrid(shape, block), block, args: ["a", "out", "s"] }],
    reference: (inp) => {
      const a = (inp.a as HostNDArray).data;
      const out = new Float32Array(n);
      for (let i = 0; i < d0; i++)
        for (let j = 0; j < d1; j++)
          for (let k = 0; k < d2; k++) {
            const idx = (i * d1 + j) * d2 + k;
            out[idx] = s * a[idx] + (i * 100 + j * 10 + k);
          }
      return { out: nd(out, shape) };
    },
    tolerance: { abs: 1e-4, rel: 1e-6 },
  };
}

function laplaceCase(shape: Dims, block: Dims, seed: number): CorpusCase {
  const [d0, d1, d2] = shape;
  const n = d0 * d1 * d2;
  return {
    name: `laplace3d ${shape.join("x")}, block ${block.join("x")}`,
    setup: () => ({ a: nd(randomF32(n, seed), shape), out: nd(new Float32Array(n), shape) }),
    launches: [{ kernel: "laplace3d", grid: launchGrid(shape, block), block, args: ["a", "out"] }],
    reference: (inp) => {
      const a = (inp.a as HostNDArray).data;
      const at = (i: number, j: number, k: number) => a[(i * d1 + j) * d2 + k];
      const out = new Float32Array(n);
      for (let i = 0; i < d0; i++)
        for (let j = 0; j < d1; j++)
          for (let k = 0; k < d2; k++) {
            const boundary = i === 0 || j === 0 || k === 0 || i === d0 - 1 || j === d1 - 1 || k === d2 - 1;
            out[(i * d1 + j) * d2 + k] = boundary
              ? at(i, j, k)
              : at(i - 1, j, k) + at(i + 1, j, k) + at(i, j - 1, k) + at(i, j + 1, k) + at(i, j, k - 1) + at(i, j, k + 1) -
                6 * at(i, j, k);
          }
      return { out: nd(out, shape) };
    },
    tolerance: { abs: 1e-5, rel: 1e-5 },
  };
}

export const cases: CorpusCase[] = [
  affineCase([16, 16, 16], [4, 4, 4], 261),
  affineCase([10, 7, 13], [4, 4, 4], 262), // partial blocks on every axis
  laplaceCase([12, 9, 20], [8, 4, 4], 263),
  laplaceCase([3, 3, 3], [2, 2, 2], 264),
];
