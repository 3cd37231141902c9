import { cuda, f32, i32, type Array1D } from "cudascript";

interface Particle { x: f32; y: f32; id: i32 }
const Particle = cuda.record({ x: f32, y: f32, id: i32 });

/** A whole record cannot be a number, nor grow with +=. */
export const wrong = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < ps.length) {
    out[i] = ps[i]; // @expect CS2044
    const p = ps[i];
    out[i] = p; // @expect CS2044
    ps[i] += 1; // @expect CS2044
    let q = ps[i];
    q = ps[0]; // @expect CS2044
  }
});

/** What to write instead: copy the record, read and write its fields, store it whole. */
export const right = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i + 1 < ps.length) {
    let p = ps[i];
    out[i] = p.x + p.y;
    p.x += 1;
    ps[i + 1] = p;
  }
});
