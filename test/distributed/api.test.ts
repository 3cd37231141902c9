/** `dist` in a program of one rank (no launcher): collectives are the identity, and bad arguments are CSR071. */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bool, c64, cuda, dist, f32, i32, type CudaScriptError } from "cudascript";

const code = (c: string, re: RegExp) => (e: CudaScriptError) => e.code === c && re.test(e.message);

describe("dist on one rank", () => {
  it("is rank 0 of 1, and its collectives leave the arrays as they are", async () => {
    assert.deepEqual([dist.rank, dist.size, dist.localRank], [0, 1, 0]);
    const a = cuda.toDevice(new Float32Array([1.5, -2]));
    await dist.allReduce(a, "prod");
    await dist.broadcast(a, 0);
    await dist.barrier();
    assert.deepEqual([...a.copyToHost()], [1.5, -2]);
    const all = cuda.deviceArray(2, f32);
    await dist.allGather(a, all);
    assert.deepEqual([...all.copyToHost()], [1.5, -2]);
  });

  it("refuses what is not a contiguous device array of a dtype collectives move, a bad op, root or peer, and sizes that do not fit (CSR071)", async () => {
    await assert.rejects(dist.allReduce(new Float32Array(2) as never), code("CSR071", /takes a device array .* not a host Float32Array: copy it with cuda\.toDevice first/));
    await assert.rejects(dist.allReduce(cuda.toDevice(new Float32Array(2)), "avg" as never), code("CSR071", /the reduction is "sum", "prod", "max" or "min", not "avg"/));
    await assert.rejects(dist.broadcast(cuda.toDevice(new Float32Array(2)), 1), code("CSR071", /root must be a rank of this job, a whole number from 0 to 0, not 1/));
    await assert.rejects(dist.allReduce(cuda.deviceArray([4, 4], f32).T), code("CSR071", /contiguous array, not a strided view/));
    await assert.rejects(dist.allReduce(cuda.deviceArray(2, bool)), code("CSR071", /cannot move bool arrays: use one of i8, u8/));
    await assert.rejects(dist.allReduce(cuda.deviceArray(2, c64)), code("CSR071", /cannot move c64 arrays/));
    await assert.rejects(dist.allGather(cuda.deviceArray(2, i32), cuda.deviceArray(3, i32)), code("CSR071", /dst holds 3 elements; it needs size × src\.size = 1 × 2 = 2/));
    await assert.rejects(dist.allGather(cuda.deviceArray(2, i32), cuda.deviceArray(2, f32)), code("CSR071", /src is i32 and dst f32/));
    await assert.rejects(dist.recv(cuda.deviceArray(2, i32), 0), code("CSR071", /receiving from itself/));
    const freed = cuda.deviceArray(2, i32);
    freed.free();
    await assert.rejects(dist.barrier().then(() => dist.allReduce(freed)), code("CSR010", /freed/));
  });
});
