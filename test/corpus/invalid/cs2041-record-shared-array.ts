import { cuda, f32, i32, type Array1D } from "cudascript";

interface Particle { x: f32; y: f32; id: i32 }
const Particle = cuda.record({ x: f32, y: f32, id: i32 });

const sumX = cuda.device((ps: Array1D<f32>, n: i32): f32 => ps[0] * n);
const firstX = cuda.device((p: Particle): f32 => p.x);

/** Shared and local arrays of records are one array per field: what stays unsupported is CS2041, with what to write. */
export const tile = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const dyn = cuda.shared.array(0, Particle); // @expect CS2041
  const s = cuda.shared.array(64, Particle);
  const t = cuda.threadIdx.x;
  s[t] = ps[t];
  cuda.syncthreads();
  out[t] = sumX(s, 3); // @expect CS2041
  out[t] = firstX(s[t]) + s.length;
});

/** A record result is copied into a local or an element first, not used in an expression. */
const moved = cuda.device((p: Particle): Particle => p);
export const useResult = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i >= ps.length) return;
  const q = moved(ps[i]);
  ps[i] = moved(q);
  out[i] = moved(ps[i]).x + q.y; // @expect CS2041
});
