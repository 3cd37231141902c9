import { cuda, f32, i32, type Array1D } from "cudascript";

interface Particle { x: f32; y: f32; id: i32 }
const Particle = cuda.record({ x: f32, y: f32, id: i32 });
interface Point { x: f32; y: f32 }
const Point = cuda.record({ x: f32, y: f32 });

const speed = cuda.device((p: Particle, dt: f32): f32 => p.x * dt + p.y);
const firstX = cuda.device((ps: Array1D<Particle>): f32 => ps[0].x);

/** A record parameter takes a record of its type: an element or a record local; a record array parameter, a record array of its type. */
export const k = cuda.jit((ps: Array1D<Particle>, qs: Array1D<Point>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = speed(ps[i].x, 0.5); // @expect CS2046
  out[i] = speed(qs[i], 0.5); // @expect CS2046
  const p = ps[i];
  out[i] = speed(p, 0.5) + speed(ps[i], 2) + firstX(ps);
  out[i] = firstX(qs); // @expect CS2046
});
