import { cuda, f32, i32, type Array1D } from "cudascript";

interface Particle { x: f32; y: f32; id: i32 }
const Particle = cuda.record({ x: f32, y: f32, id: i32 });

/** Shared and local arrays of records are not compiled yet: CS2041 says so. */
export const tile = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const s = cuda.shared.array(64, Particle); // @expect CS2041
  const l = cuda.local.array(4, Particle); // @expect CS2041
  out[0] = 1;
});

/** What to write instead: one shared array per field. */
export const tileByField = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const sx = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  sx[t] = i < ps.length ? ps[i].x : 0;
  cuda.syncthreads();
  if (i < out.length) out[i] = sx[63 - t];
});
