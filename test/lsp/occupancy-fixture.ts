/**
 * A file with kernels whose occupancy is worked out by hand in the tests (static shared memory sizes
 * chosen so the shared-memory limit is exact), shared by the hover and resource tests.
 */
export const OCCUPANCY_FIXTURE = `import { cuda, f32 } from "cudascript";

const TILE = 10240; // 10240 f32 = 40960 bytes = 40 KiB of static shared memory

export const bigTile = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TILE, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (i < x.length) tile[t] = x[i];
  cuda.syncthreads();
  if (i < out.length) out[i] = tile[t] * 2;
});

export const small = cuda.jit((x: Float32Array, out: Float32Array) => {
  const s = cuda.shared.array(256, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  s[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  if (i < out.length) out[i] = s[255 - t];
});

export const dyn = cuda.jit((x: Float32Array, out: Float32Array) => {
  const s = cuda.shared.array(0, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  s[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  if (i < out.length) out[i] = s[t] + 1;
});

export function run(x: Float32Array, out: Float32Array): void {
  bigTile.launch(64, 256)(x, out);
  small.launch(64, 256)(x, out);
  dyn.launch(64, 128, { sharedMem: 16384 })(x, out);
}
`;
