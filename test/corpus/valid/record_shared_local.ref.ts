import { CorpusCase, randomF32 } from "../case";

const TPB = 64;
const f = Math.fround;

/** energy(b, scale) in f32: b.x * b.v * scale + b.id. */
const energy = (x: number, v: number, id: number, scale: number) => f(f(f(x * v) * scale) + id);

function sharedCase(n: number, seed: number): CorpusCase {
  const blocks = Math.ceil(n / TPB);
  return {
    name: `sharedBodies n=${n} (${blocks} blocks)`,
    setup: () => ({ xs: randomF32(n, seed), vs: randomF32(n, seed + 1), out: new Float32Array(n), ids: new Int32Array(n), counts: new Int32Array(blocks) }),
    launches: [{ kernel: "sharedBodies", grid: blocks, block: TPB, args: ["xs", "vs", "out", "ids", "counts"] }],
    reference: (inp) => {
      const xs = inp.xs as Float32Array, vs = inp.vs as Float32Array;
      const out = new Float32Array(n), ids = new Int32Array(n), counts = new Int32Array(blocks);
      for (let i = 0; i < n; i++) {
        const b = Math.floor(i / TPB), t = i % TPB, j = b * TPB + ((t + 1) % TPB);
        const [nx, nv, nid] = j < n ? [xs[j]!, vs[j]!, j] : [0, 0, -1];
        out[i] = f(f(energy(nx, nv, nid, 2) + f(xs[i]! + 1)) + xs[i]!);
        ids[i] = nid;
        counts[b]!++;
      }
      return { out, ids, counts };
    },
    tolerance: { abs: 1e-5, rel: 1e-5 },
  };
}

function localCase(n: number, seed: number): CorpusCase {
  return {
    name: `localBodies n=${n}`,
    setup: () => ({ xs: randomF32(n, seed), out: new Float32Array(n) }),
    launches: [{ kernel: "localBodies", grid: Math.ceil(n / 32), block: 32, args: ["xs", "out"] }],
    reference: (inp) => {
      const xs = inp.xs as Float32Array, out = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const recs = [0, 1, 2, 3].map((k) => ({ x: f(xs[i]! + k), v: k, id: k * 10 }));
        recs[3] = { ...recs[0]! };
        let s = 0;
        for (const r of recs) s = f(s + energy(r.x, r.v, r.id, 1));
        const before = f(f(f(f(s + 100) + recs[1]!.x) + 101) + recs[3]!.id);
        // scaled(loc[2], 3): x · 3, id + 1; scaled(p, 0.5) into loc[0]: 100 · 0.5.
        out[i] = f(f(f(before + f(recs[2]!.x * 3)) + (recs[2]!.id + 1)) + 50);
      }
      return { out };
    },
    tolerance: { abs: 1e-4, rel: 1e-5 },
  };
}

function gridCase(n: number, seed: number): CorpusCase {
  const blocks = Math.ceil(n / TPB);
  return {
    name: `sharedGrid n=${n} (2-D shared records)`,
    setup: () => ({ xs: randomF32(n, seed), out: new Float32Array(n) }),
    launches: [{ kernel: "sharedGrid", grid: blocks, block: TPB, args: ["xs", "out"] }],
    reference: (inp) => {
      const xs = inp.xs as Float32Array, out = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const b = Math.floor(i / TPB), t = i % TPB, o = TPB - 1 - t, j = b * TPB + o;
        const rx = j < n ? -xs[j]! : 0;
        out[i] = f(f(f(rx * 2) + xs[i]!) + o);
      }
      return { out };
    },
    tolerance: { abs: 1e-5, rel: 1e-5 },
  };
}

export const cases: CorpusCase[] = [sharedCase(200, 31), localCase(100, 33), gridCase(150, 35)];
