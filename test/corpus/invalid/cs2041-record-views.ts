import { cuda, f32, i32, bool, type Array1D } from "cudascript";

interface Particle { x: f32; y: f32; id: i32 }
const Particle = cuda.record({ x: f32, y: f32, id: i32 });
interface Other { x: f32; w: f32 }
const Other = cuda.record({ x: f32, w: f32 });

const firstX = cuda.device((ps: Array1D<Particle>): f32 => ps[0].x);

/** Views and array variables of record arrays are read and written through their elements; what stays unsupported is CS2041. */
export const k = cuda.jit((ps: Array1D<Particle>, qs: Array1D<Particle>, others: Array1D<Other>, flag: bool, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const tail = ps.subarray(1);
  out[i] = tail[i].x + tail.length;
  out[i] = firstX(tail); // @expect CS2041
  cuda.atomic.add(tail, [i, "id"], 1); // @expect CS2041
  const w = flag ? ps : qs;
  out[i] = w[i].x;
  const mixed = flag ? ps : others;
  out[i] = mixed[i].x; // @expect CS2041
});
