import { cuda, f32, i32, type Array1D } from "cudascript";

interface Particle { x: f32; y: f32; id: i32 }
const Particle = cuda.record({ x: f32, y: f32, id: i32 });

/** A JavaScript array of objects cannot reach a GPU: CS2004 says to use a record array. */
export const wrong = cuda.jit((ps: Particle[], out: Array1D<f32>) => { // @expect CS2004
  out[0] = 1;
});

/** Nested records are not supported: flatten the inner record's fields. */
interface Cell { center: Particle; w: f32 }
export const nested = cuda.jit((cs: Array1D<Cell>, out: Array1D<f32>) => { // @expect CS2004
  out[0] = 1;
});

/** What to write instead: an Array1D of the record type, its fields flat. */
export const right = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < ps.length) out[i] = ps[i].x;
});
