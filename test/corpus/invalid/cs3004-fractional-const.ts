import { cuda, f32 } from "cudascript";

const TPB = 128;
const WORK = 3;
/** True division: 128 / 3 is 42.666..., not a valid size. */
const PER_THREAD = TPB / WORK;
const SLACK = TPB - 128;

export const splitWork = cuda.jit((x: Float32Array, out: Float32Array) => {
  const buf = cuda.local.array(PER_THREAD, f32); // @expect CS3004
  const i = cuda.grid(1);
  buf[0] = i < x.length ? x[i] : 0;
  if (i < out.length) out[i] = buf[0];
});

export const slackBuffer = cuda.jit((x: Float32Array, out: Float32Array) => {
  const pad = cuda.local.array(SLACK, f32); // @expect CS3004
  const i = cuda.grid(1);
  if (i < out.length) out[i] = x[i];
});

/** Integer division gives 42. */
const PER_THREAD_OK = (TPB / WORK) | 0;

export const splitWorkOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const buf = cuda.local.array(PER_THREAD_OK, f32);
  const i = cuda.grid(1);
  buf[0] = i < x.length ? x[i] : 0;
  if (i < out.length) out[i] = buf[0];
});
