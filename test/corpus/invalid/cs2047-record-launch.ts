import { cuda, f32, i32, type Array1D, type Array2D } from "cudascript";

interface Particle { x: f32; y: f32; id: i32 }
const Particle = cuda.record({ x: f32, y: f32, id: i32 });
const Swapped = cuda.record({ y: f32, x: f32, id: i32 });

export const step = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < ps.length) out[i] = ps[i].x + ps[i].y;
});
export const grid2 = cuda.jit((g: Array2D<Particle>, out: Array1D<f32>) => {
  const [r, c] = cuda.grid(2);
  if (r < g.shape[0] && c < g.shape[1]) out[r] = g[r][c].x;
});
export const one = cuda.jit((p: Particle, out: Array1D<f32>) => {
  out[0] = p.x * p.id;
});

/** The launch check at check time: a record array (or record) whose dtype has other fields than the kernel's type. */
export function run(n: number): void {
  const out = new Float32Array(n);
  const good = cuda.recordArray(Particle, n);
  const bad = cuda.recordArray(Swapped, n);
  const badOnDevice = cuda.toDevice(bad);
  step.launch(1, 32)(good, out);
  step.launch(1, 32)(cuda.toDevice(good), out);
  step.launch(1, 32)(bad, out); // @expect CS2047
  step.launch(1, 32)(badOnDevice, out); // @expect CS2047
  step.launch(1, 32)(cuda.recordArray(cuda.record({ x: f32, y: f32 }), n), out); // @expect CS2047
  one.launch(1, 1)(good.get(0), out);
  one.launch(1, 1)({ x: 1, y: 2, id: 3 }, out);
  one.launch(1, 1)(bad.get(0), out); // @expect CS2047
  one.launch(1, 1)({ x: 1, y: 2 }, out); // @expect CS2047
  grid2.launch([1, 1], [8, 8])(cuda.recordArray(Particle, [4, 8]), out);
  grid2.launch([1, 1], [8, 8])(cuda.recordArray(Particle, 64), out); // @expect CS2047
  step.launch(1, 32)(cuda.recordArray(Particle, [4, 8]), out); // @expect CS2047
}
