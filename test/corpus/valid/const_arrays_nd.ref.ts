import { CorpusCase, HostNDArray, nd, randomF32, randomI32 } from "../case";

/** FILTER_2D of const_arrays_nd.ts, row-major 3 × 5, as stored in f32. */
const FILTER = new Float32Array([0.01, 0.02, 0.03, 0.04, 0.05, 0.1, 0.2, 0.4, 0.15, 0.05, 0.5, -0.25, 0.125, -0.0625, 0.03125]);
const TY = 3;
const TX = 5;

/** CUBE[a][b][c] = 100 a + 10 b + c for the 2 × 3 × 4 table. */
const cube = (a: number, b: number, c: number): number => 100 * a + 10 * b + c;

function filter2d(img: HostNDArray): Float32Array {
  const [h, w] = img.shape as [number, number];
  const out = new Float32Array(h * w);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      let acc = 0;
      for (let dy = 0; dy < TY; dy++)
        for (let dx = 0; dx < TX; dx++) {
          const yy = y + dy - 1;
          const xx = x + dx - 2;
          if (yy >= 0 && yy < h && xx >= 0 && xx < w) acc = Math.fround(acc + Math.fround(FILTER[dy * TX + dx]! * img.data[yy * w + xx]!));
        }
      out[y * w + x] = acc;
    }
  return out;
}

function rowSums(): Float32Array {
  const out = new Float32Array(TY);
  for (let r = 0; r < TY; r++) {
    let s = 0;
    for (let c = 0; c < TX; c++) s = Math.fround(s + FILTER[r * TX + c]!);
    out[r] = s;
  }
  return out;
}

function filterCase(h: number, w: number, block: [number, number], seed: number): CorpusCase {
  return {
    name: `filter2dConst ${h}x${w}, block ${block[0]}x${block[1]}`,
    setup: () => ({ img: nd(randomF32(h * w, seed), [h, w]), out: nd(new Float32Array(h * w), [h, w]), rowSums: new Float32Array(TY) }),
    launches: [{ kernel: "filter2dConst", grid: [Math.ceil(w / block[0]), Math.ceil(h / block[1])], block, args: ["img", "out", "rowSums"] }],
    reference: (inp) => ({ out: nd(filter2d(inp.img as HostNDArray), [h, w]), rowSums: rowSums() }),
    tolerance: { abs: 1e-5, rel: 1e-5 },
  };
}

function cubeCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `cubeLookup n=${n}, block=${block}`,
    setup: () => ({ idx: randomI32(n, seed, 0, 24), out: new Int32Array(n), shape: new Int32Array(3) }),
    launches: [{ kernel: "cubeLookup", grid: Math.ceil(n / block), block, args: ["idx", "out", "shape"] }],
    reference: (inp) => ({
      out: (inp.idx as Int32Array).map((f) => cube(Math.floor(f / 12), Math.floor(f / 4) % 3, f % 4)),
      shape: new Int32Array([2, 3, 4]),
    }),
  };
}

export const cases: CorpusCase[] = [filterCase(37, 53, [16, 16], 701), filterCase(8, 8, [8, 4], 702), cubeCase(500, 128, 703), cubeCase(24, 32, 704)];
