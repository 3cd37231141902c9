/**
 * What a collective costs over the TCP transport (docs/distributed.md#how-ranks-meet-the-transport),
 * side by side with the part of it every transport that stages through the host pays: the copy of the
 * array to the host and back. Rank 0 prints, per size, the median of the repetitions of each and
 * their ratio. Prints figures; asserts nothing (the machines here are noisy).
 *
 *   node runtime/dist/cli/main.js launch -n 2 --backend simulator bench/dist-allreduce.ts
 *   node runtime/dist/cli/main.js launch -n 4 --backend simulator bench/dist-allreduce.ts
 */
import { cuda, dist } from "cudascript";

const REPEATS = 7;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

for (const elements of [1024, 256 * 1024, 4 * 1024 * 1024]) {
  const a = cuda.toDevice(new Float32Array(elements).fill(dist.rank + 1));
  const staging: number[] = [];
  const allReduce: number[] = [];
  for (let r = 0; r < REPEATS; r++) {
    await dist.barrier();
    let t = performance.now();
    a.copyToDevice(a.copyToHost());
    staging.push(performance.now() - t);
    await dist.barrier();
    t = performance.now();
    await dist.allReduce(a, "sum");
    allReduce.push(performance.now() - t);
  }
  const mb = (elements * 4) / 2 ** 20;
  if (dist.rank === 0) {
    const s = median(staging), c = median(allReduce);
    console.log(
      `${dist.size} ranks, f32[${elements}] (${mb.toFixed(mb < 1 ? 3 : 0)} MiB): staging through the host ${s.toFixed(2)} ms, ` +
        `allReduce ${c.toFixed(2)} ms (${(c / s).toFixed(1)}× the staging; ${(mb / (c / 1000)).toFixed(0)} MiB/s per rank)`,
    );
  }
  a.free();
}
