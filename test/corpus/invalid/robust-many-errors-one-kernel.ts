import { cuda, f32, i32 } from "cudascript";

const TPB = 128;
let debugLevel = 0;

/** Several independent mistakes in one kernel; each is reported on its own line. */
export const kitchenSink = cuda.jit((x: Float32Array, n: i32, idx: Int32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const scratch = cuda.local.array(n, f32); // @expect CS3001
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  if (debugLevel > 1) console.log("tile", tile[0]); // @expect CS1010
  if (i >= out.length || i >= idx.length) return;
  const half = x[i / 2]; // @expect CS2002
  const sq: f32 = tile[t] ** 2; // @expect CS1013
  out[i] = half + sq;
  idx[i] = sq; // @expect CS5004
  return 1; // @expect CS2001
});

export function run(x: Float32Array, idx: Int32Array, out: Float32Array): void {
  kitchenSink.launch(Math.ceil(x.length / TPB), TPB)(x, 4, idx, out);
  kitchenSink.launch(1, [TPB, 16])(x, 4, idx); // @expect CS4001 CS4004
}
