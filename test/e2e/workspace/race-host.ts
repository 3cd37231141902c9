// Host program whose kernel races on shared memory: from k = 2 on, each thread reads its left
// neighbour's element with no cuda.syncthreads() after the neighbour wrote it. `--sanitize` (the
// sanitizer setting) finds it (CSR021); "Debug this fault" replays the run to it.
import { cuda, f32 } from "cudascript";

export const racy = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(8, f32);
  const t = cuda.threadIdx.x;
  let acc: f32 = 0;
  for (let k = 0; k < 3; k++) {
    s[t] = t + k; // write own
    const v = s[k === 2 && t > 0 ? t - 1 : t]; // racy read
    acc += v;
  }
  out[t] = acc;
});

const out = new Float32Array(8);
racy.launch(1, 8)(out);
console.log("out", Array.from(out).join(", "));
