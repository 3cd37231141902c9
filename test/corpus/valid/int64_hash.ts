import { cuda, i64, u64 } from "cudascript";

/** 64-bit FNV-1a style mixing and a running sum past 2^53: exact only with 64-bit integers. */
const FNV_PRIME: u64 = 0x100000001b3n;
const OFFSET = 14695981039346656037n;

const mix = cuda.device((h: u64, v: u64): u64 => {
  let x = h ^ v;
  x = x * FNV_PRIME;
  return x ^ (x >> 29n);
});

export const hash64 = cuda.jit((keys: BigUint64Array, out: BigUint64Array, seed: u64) => {
  const i = cuda.grid(1);
  if (i >= keys.length) return;
  let h: u64 = BigInt.asUintN(64, OFFSET) ^ seed;
  for (let r = 0; r < 4; r++) {
    h = mix(h, keys[i] + BigInt(r));
  }
  out[i] = h;
});

/** Prefix arithmetic on i64 timestamps: differences, scaling and a shared-memory block sum. */
export const scaledDiffs = cuda.jit((t: BigInt64Array, scale: i64, out: BigInt64Array, sums: BigInt64Array) => {
  const tile = cuda.shared.array(64, i64);
  const local = cuda.local.array(2, i64);
  const i = cuda.grid(1);
  const tx = cuda.threadIdx.x;
  local[0] = 0n;
  local[1] = -1n;
  if (i < t.length) {
    const prev: i64 = i > 0 ? t[i - 1] : t[i];
    local[0] = (t[i] - prev) * scale - (t[i] >> 3n) + (t[i] % 1000n);
    out[i] = local[0] & ~local[1];
  }
  tile[tx] = local[0];
  cuda.syncthreads();
  if (tx === 0) {
    let s = 0n;
    for (let k = 0; k < cuda.blockDim.x; k++) s += tile[k];
    sums[cuda.blockIdx.x] = s;
  }
});

/** Conversions both ways: Number(x) for float math, BigInt(i) for 64-bit math, low 32 bits by Number(BigInt.asIntN(64, x) & 0xffffffffn). */
export const conversions = cuda.jit((x: BigInt64Array, asF64: Float64Array, low: Int32Array, back: BigInt64Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  asF64[i] = Number(x[i]) * 0.5;
  low[i] = Number(BigInt.asIntN(64, x[i] & 0x7fffffffn));
  back[i] = BigInt(low[i]) + BigInt(Math.trunc(asF64[i] / 1e9));
});

/** cuda.grid64(1): a 64-bit global index, used as an index through Number(…) and in 64-bit math. */
export const gridIndex64 = cuda.jit((out: BigInt64Array) => {
  const i = cuda.grid64(1);
  if (i < BigInt(out.length)) out[Number(i)] = i * 3000000000n - 7n;
});
