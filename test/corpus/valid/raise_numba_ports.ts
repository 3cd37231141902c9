import { cuda, bool, f32, i32 } from "cudascript";

// Numba's test_exceptions.py kernels (issue 31 item 2): a kernel or device function throws, the thread
// stops and the launch fails on the host with CSR085 (test/simulator/raise.test.ts launches them with a
// thread that throws; the corpus cases here are the launches where none does, on every backend).

/** test_user_raise: `if do_raise: raise ValueError` (Numba's `debug=True` is accepted too: raise.test.ts). */
export const userRaise = cuda.jit((doRaise: bool, out: Int32Array) => {
  if (doRaise) throw new Error("ValueError");
  out[0] = 1;
});

/** test_raise_in_device_function: the device function raises; the kernel calling it stops too. */
const checked = cuda.device((x: i32): i32 => {
  if (x < 0) throw new RangeError(`Device Function Error: ${x} is negative`);
  return x * 2;
});
export const callsRaising = cuda.jit((x: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = checked(x[i]);
});

/** test_raise_causing_warp_diverge: one thread of the warp raises, the others carry on and sync. */
export const divergeRaise = cuda.jit((bad: i32, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i === bad) throw new Error(`thread ${i} raised`);
  if (i < out.length) out[i] = i;
});

/** console.assert: the message is formatted as console.log formats it. */
export const asserted = cuda.jit((x: Float32Array, limit: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    console.assert(x[i] <= limit, `x[${i}] = ${x[i]} exceeds ${limit}: ${x[i] > limit}`);
    x[i] = x[i] * 2;
  }
});
