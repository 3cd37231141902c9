import { CorpusCase, seeded } from "../case";

/** Halves (rint's ties), signed zeros, powers of two, then random values of both signs. */
const EDGES = [0, -0, 0.25, 0.75, -1.25, 2.5, 1, -1, 1024, 3.5e-310, 1e300];

function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function frexp(x: number): [number, number] {
  if (x === 0 || !Number.isFinite(x)) return [x, 0];
  // Scale by powers of two (exact) until the magnitude is in [0.5, 1).
  let m = x, e = 0;
  while (Math.abs(m) >= 1) { m /= 2; e++; }
  while (Math.abs(m) < 0.5) { m *= 2; e--; }
  return [m, e];
}

function f64Case(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `libdeviceF64 n=${n}, block=${block}`,
    setup: () => {
      const r = seeded(seed);
      const x = new Float64Array(n);
      for (let i = 0; i < n; i++) x[i] = (r() - 0.5) * 200;
      x.set(EDGES.slice(0, Math.min(EDGES.length, n)));
      return { x, out: new Float64Array(n * 6), exps: new Int32Array(n) };
    },
    launches: [{ kernel: "libdeviceF64", grid: Math.ceil(n / block), block, args: ["x", "out", "exps"] }],
    reference: (inp) => {
      const x = inp.x as Float64Array;
      const out = new Float64Array(n * 6);
      const exps = new Int32Array(n);
      x.forEach((v, i) => {
        const [m, e] = frexp(v);
        out.set([Math.sin(v), Math.cos(v), m, roundHalfEven(v * 2), v > 1 ? v - 1 : 0, v * 8], i * 6);
        exps[i] = e;
      });
      return { out, exps };
    },
    // sin/cos: 2 ulp (CUDA's bound for sincos); the rest are exact, well inside this.
    tolerance: { abs: 1e-300, rel: 5e-16 },
  };
}

function intCase(n: number, block: number, seed: number): CorpusCase {
  return {
    name: `libdeviceInt n=${n}, block=${block}`,
    setup: () => {
      const r = seeded(seed);
      const a = new Int32Array(n);
      for (let i = 0; i < n; i++) a[i] = Math.floor(r() * 4294967296) | 0;
      a.set([0, -1, 1, 0x7fffffff, -0x80000000].slice(0, n));
      return { a, out: new Int32Array(n * 4), wide: new BigInt64Array(n) };
    },
    launches: [{ kernel: "libdeviceInt", grid: Math.ceil(n / block), block, args: ["a", "out", "wide"] }],
    reference: (inp) => {
      const a = inp.a as Int32Array;
      const out = new Int32Array(n * 4);
      const wide = new BigInt64Array(n);
      a.forEach((v, i) => {
        // __byte_perm(x, y, s): byte k of the result is byte (s >> 4k) & 7 of the 8 bytes y:x.
        const s = 0x3210 + i;
        const bytes = [v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) & 255, 0x67, 0x45, 0x23, 0x01];
        let perm = 0;
        for (let k = 0; k < 4; k++) perm |= bytes[(s >>> (4 * k)) & 7]! << (8 * k);
        let popc = 0;
        for (let b = v >>> 0; b; b >>>= 1) popc += b & 1;
        const mulhi = Number((BigInt(v) * 0x7fffffffn) >> 32n) | 0;
        const sad = (Math.abs(v - -v) + 5) | 0;
        out.set([perm | 0, popc, mulhi, sad], i * 4);
        let rev = 0n;
        let w = BigInt.asUintN(64, BigInt(v));
        for (let b = 0; b < 64; b++) { rev = (rev << 1n) | (w & 1n); w >>= 1n; }
        wide[i] = BigInt.asIntN(64, rev);
      });
      return { out, wide };
    },
  };
}

export const cases: CorpusCase[] = [f64Case(300, 64, 901), f64Case(11, 32, 902), intCase(200, 64, 903)];
