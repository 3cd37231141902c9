import { cuda, f32, i32, type Array1D } from "cudascript";

interface Particle { x: f32; y: f32; id: i32 }
const Particle = cuda.record({ x: f32, y: f32, id: i32 });

/** Speed of each particle: the field is called `x`, not `vx`. */
export const speeds = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < ps.length) {
    out[i] = ps[i].vx; // @expect CS2042
  }
});

/** What to write instead: a field the interface declares. */
export const xs = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < ps.length) out[i] = ps[i].x;
});
