import { cuda, f32, i32 } from "cudascript";

/** A body of a toy simulation: position, velocity and a tag (issue 31: records in shared and local arrays). */
interface Body {
  x: f32;
  v: f32;
  id: i32;
}
const Body = cuda.record({ x: f32, v: f32, id: i32 });

const TPB = 64;

/** A record parameter is a copy (by value, as in Numba): changing it changes no caller's record. */
const energy = cuda.device((b: Body, scale: f32): f32 => b.x * b.v * scale + b.id);
const nudged = cuda.device((b: Body): f32 => {
  b.x = b.x + 1;
  return b.x;
});

/** A record result (Numba's device functions return records too): b is a copy, returned changed. */
const scaled = cuda.device((b: Body, k: f32): Body => {
  b.x = b.x * k;
  b.id = b.id + 1;
  return b;
});

/** Bodies staged in a shared array of records; each thread reads its neighbour's record after the barrier. */
export const sharedBodies = cuda.jit((xs: Float32Array, vs: Float32Array, out: Float32Array, ids: Int32Array, counts: Int32Array) => {
  const sh = cuda.shared.array(TPB, Body);
  const tally = cuda.shared.array(1, Body);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (t === 0) {
    tally[0].x = 0;
    tally[0].v = 0;
    tally[0].id = 0;
  }
  if (i < xs.length) {
    sh[t].x = xs[i];
    sh[t].v = vs[i];
    sh[t].id = i;
  } else {
    sh[t].x = 0;
    sh[t].v = 0;
    sh[t].id = -1;
  }
  cuda.syncthreads();
  const n = sh[(t + 1) % TPB];
  if (i < xs.length) {
    cuda.atomic.add(tally, [0, "id"], 1);
    out[i] = energy(n, 2) + nudged(sh[t]) + sh[t].x;
    ids[i] = n.id;
  }
  cuda.syncthreads();
  if (t === 0) counts[cuda.blockIdx.x] = tally[0].id + (tally[0].x === tally[0].v ? 0 : 1);
});

/** Per-thread scratch records in a local array: element copies, whole-record stores, fields, length, record results. */
export const localBodies = cuda.jit((xs: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= xs.length) return;
  const loc = cuda.local.array(4, Body);
  for (let k = 0; k < 4; k++) {
    loc[k].x = xs[i] + k;
    loc[k].v = k;
    loc[k].id = k * 10;
  }
  loc[3] = loc[0];
  let p = loc[1];
  p.x = 100;
  let s: f32 = 0;
  for (let k = 0; k < loc.length; k++) s += energy(loc[k], 1);
  const s2 = scaled(loc[2], 3);
  loc[0] = scaled(p, 0.5);
  out[i] = s + p.x + loc[1].x + nudged(p) + loc[3].id + s2.x + s2.id + loc[0].x;
});

/** A 2-D shared array of records (rows × TPB), read across rows after the barrier. */
export const sharedGrid = cuda.jit((xs: Float32Array, out: Float32Array) => {
  const g = cuda.shared.array([2, TPB], Body);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  const x = i < xs.length ? xs[i] : 0;
  g[0][t].x = x;
  g[0][t].v = 2;
  g[0][t].id = t;
  g[1][t] = g[0][t];
  g[1][t].x = -x;
  cuda.syncthreads();
  const r = g[1][g.shape[1] - 1 - t];
  if (i < xs.length) out[i] = r.x * r.v + g[0][t].x + r.id;
});
