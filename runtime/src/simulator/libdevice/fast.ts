// The fast intrinsics (__sinf, __expf, __fdividef, …). The GPU evaluates them with its approximate
// hardware instructions, whose exact bits the CPU cannot reproduce; the simulator returns the accurate
// binary32 value, which lies inside every bound CUDA documents for them (test/libdevice/accuracy.test.ts).
// __fdividef keeps the GPU's documented cliff: for 2^126 < |y| < 2^128 it returns 0 (NaN for infinite x).
import { ELEMENTARY } from "./elementary";

const fr = Math.fround;

export const FAST = {
  fast_cosf: ELEMENTARY.cosf,
  fast_sinf: ELEMENTARY.sinf,
  fast_tanf: ELEMENTARY.tanf,
  fast_sincosf: ELEMENTARY.sincosf,
  fast_expf: ELEMENTARY.expf,
  fast_exp10f: ELEMENTARY.exp10f,
  fast_logf: ELEMENTARY.logf,
  fast_log2f: ELEMENTARY.log2f,
  fast_log10f: ELEMENTARY.log10f,
  fast_powf: ELEMENTARY.powf,
  fast_fdividef: (x: number, y: number) => {
    const ay = Math.abs(y);
    if (ay > 2 ** 126 && ay < Infinity) return x * (y < 0 ? -0 : 0); // 1/y flushed to a signed zero
    return fr(x / y);
  },
};
