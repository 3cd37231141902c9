import { cuda, f32, i32, type Array1D } from "cudascript";

/** The dtype lists the fields in another order than the interface: other offsets, other bytes. */
interface Particle { x: f32; y: f32; id: i32 }
const Particle = cuda.record({ x: f32, id: i32, y: f32 }); // @expect CS2043

/** A record field must be a dtype (no nested records). */
interface Cell { w: f32 }
const Cell = cuda.record({ w: f32, center: Particle }); // @expect CS2040

/** What to write instead: the same fields in the same order. */
interface Body { x: f32; y: f32; id: i32 }
const Body = cuda.record({ x: f32, y: f32, id: i32 });

export const xs = cuda.jit((ps: Array1D<Particle>, bs: Array1D<Body>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < ps.length && i < bs.length) out[i] = ps[i].x + bs[i].y;
});
