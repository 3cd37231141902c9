/** The parts of `dist` that need no process of their own: reductions, the frames, the environment, one collective step. */
import * as assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { CudaScriptError } from "cudascript/dist/errors";
import { computeStep } from "cudascript/dist/distributed/collective";
import { firstHost, readPlacement } from "cudascript/dist/distributed/env";
import { reduceAll } from "cudascript/dist/distributed/reduce";
import { FrameReader, writeFrame, type Frame } from "cudascript/dist/distributed/wire";
import { pipeLines, rankPrefix, relabelSlurmLine } from "cudascript/dist/cli/launch/rank-output";

const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

describe("dist reductions", () => {
  it("f32 sums round at each step, in rank order: ((r0 + r1) + r2), as a Float32Array accumulation", () => {
    const parts = [new Float32Array([1e8, 0.1]), new Float32Array([1, 0.2]), new Float32Array([-1e8, 0.3])];
    const got = new Float32Array(reduceAll("sum", "f32", parts.map(bytes)).buffer);
    let x = Math.fround(1e8 + 1);
    x = Math.fround(x - 1e8);
    let y = Math.fround(0.1 + Math.fround(0.2));
    y = Math.fround(y + Math.fround(0.3));
    assert.deepEqual([...got], [x, y]);
  });

  it("integers wrap at their width; products keep their low bits exactly (Math.imul); i64 is exact BigInt", () => {
    const i32 = new Int32Array(reduceAll("sum", "i32", [new Int32Array([2 ** 31 - 1]), new Int32Array([1])].map(bytes)).buffer);
    assert.equal(i32[0], -(2 ** 31));
    const u32 = new Uint32Array(reduceAll("prod", "u32", [new Uint32Array([0xffffffff]), new Uint32Array([0xffffffff])].map(bytes)).buffer);
    assert.equal(u32[0], 1);
    const i64 = new BigInt64Array(reduceAll("prod", "i64", [new BigInt64Array([2n ** 40n]), new BigInt64Array([2n ** 30n])].map(bytes)).buffer);
    assert.equal(i64[0], BigInt.asIntN(64, 2n ** 70n));
    const u8 = new Uint8Array(reduceAll("sum", "u8", [new Uint8Array([200]), new Uint8Array([100])]));
    assert.equal(u8[0], 44);
  });

  it("max and min propagate NaN from any rank; they compare by value otherwise", () => {
    const parts = [new Float64Array([1, NaN, -0]), new Float64Array([NaN, 2, 5]), new Float64Array([3, 1, -7])].map(bytes);
    assert.deepEqual([...new Float64Array(reduceAll("max", "f64", parts).buffer)], [NaN, NaN, 5]);
    assert.deepEqual([...new Float64Array(reduceAll("min", "f64", parts).buffer)], [NaN, NaN, -7]);
  });
});

describe("one collective step", () => {
  const call = (op: "allReduce" | "allGather" | "reduceScatter", count: number, resultCount: number) => ({ op, dtype: "i32", count, resultCount, reduce: "sum" });
  it("allGather concatenates in rank order; reduceScatter gives rank r part r of the sum", () => {
    const parts = [new Int32Array([1, 2]), new Int32Array([10, 20])].map(bytes);
    const gathered = computeStep(0, [call("allGather", 2, 4), call("allGather", 2, 4)], parts);
    assert.deepEqual([...new Int32Array(gathered[1]!.slice().buffer)], [1, 2, 10, 20]);
    const scattered = computeStep(0, [call("reduceScatter", 2, 1), call("reduceScatter", 2, 1)], parts);
    assert.deepEqual([...new Int32Array(scattered[0]!.slice().buffer)], [11]);
    assert.deepEqual([...new Int32Array(scattered[1]!.slice().buffer)], [22]);
  });
  it("ranks that disagree are CSR072, naming both calls", () => {
    assert.throws(
      () => computeStep(4, [call("allReduce", 2, 2), call("allReduce", 3, 3)], [new Uint8Array(8), new Uint8Array(12)]),
      (e: CudaScriptError) => e.code === "CSR072" && /collective #5: rank 0 called dist\.allReduce\(i32\[2\], "sum"\), rank 1 called dist\.allReduce\(i32\[3\], "sum"\)/.test(e.message),
    );
  });
});

describe("frames", () => {
  it("split back exactly however the stream is cut", () => {
    const sock = new PassThrough();
    const chunks: Buffer[] = [];
    sock.on("data", (c: Buffer) => chunks.push(c));
    writeFrame(sock as never, { kind: "result", seq: 3 }, new Uint8Array([1, 2, 3]));
    writeFrame(sock as never, { kind: "welcome" });
    writeFrame(sock as never, { kind: "p2p", from: 1, to: 2, dtype: "f32", count: 1 }, new Uint8Array(4).fill(9));
    const all = Buffer.concat(chunks);
    for (const cut of [1, 3, 7, all.length]) {
      const frames: Frame[] = [];
      const reader = new FrameReader((f) => frames.push(f));
      for (let i = 0; i < all.length; i += cut) reader.push(all.subarray(i, i + cut));
      assert.deepEqual(frames.map((f) => [f.message.kind, [...f.payload]]), [["result", [1, 2, 3]], ["welcome", []], ["p2p", [9, 9, 9, 9]]]);
    }
  });
});

describe("where a rank stands", () => {
  it("no variables: rank 0 of 1; cudascript launch's, Slurm's and Kubernetes' variables", () => {
    assert.deepEqual([readPlacement({}).rank, readPlacement({}).size], [0, 1]);
    const launched = readPlacement({ CUDASCRIPT_RANK: "2", CUDASCRIPT_WORLD_SIZE: "4", CUDASCRIPT_LOCAL_RANK: "2", CUDASCRIPT_DIST_ADDR: "127.0.0.1:29500" });
    assert.deepEqual([launched.rank, launched.size, launched.localRank, launched.host, launched.port], [2, 4, 2, "127.0.0.1", 29500]);
    const slurm = readPlacement({ SLURM_PROCID: "3", SLURM_NTASKS: "8", SLURM_LOCALID: "1", SLURM_STEP_NODELIST: "gpu[07-09],cpu1", CUDASCRIPT_DIST_PORT: "4000" });
    assert.deepEqual([slurm.rank, slurm.size, slurm.localRank, slurm.host, slurm.port, slurm.source], [3, 8, 1, "gpu07", 4000, "Slurm"]);
    const k8s = readPlacement({ JOB_COMPLETION_INDEX: "1", CUDASCRIPT_WORLD_SIZE: "2", CUDASCRIPT_DIST_ADDR: "job-0.svc:29500" });
    assert.deepEqual([k8s.rank, k8s.size, k8s.host, k8s.source], [1, 2, "job-0.svc", "Kubernetes"]);
    assert.equal(firstHost("node12"), "node12");
    assert.equal(firstHost("n[1-3,5]"), "n1");
  });
  it("variables that do not fit together are CSR070 saying what to write", () => {
    const bad = (env: NodeJS.ProcessEnv, re: RegExp) => assert.throws(() => readPlacement(env), (e: CudaScriptError) => e.code === "CSR070" && re.test(e.message));
    bad({ CUDASCRIPT_RANK: "4", CUDASCRIPT_WORLD_SIZE: "4", CUDASCRIPT_DIST_ADDR: "h:1" }, /rank 4 is not below the job's size 4/);
    bad({ CUDASCRIPT_RANK: "one" }, /CUDASCRIPT_RANK=one is not a whole number/);
    bad({ CUDASCRIPT_RANK: "0", CUDASCRIPT_WORLD_SIZE: "2" }, /needs rank 0's address: start it with cudascript launch/);
    bad({ CUDASCRIPT_RANK: "0", CUDASCRIPT_WORLD_SIZE: "2", CUDASCRIPT_DIST_ADDR: "nohost" }, /is not host:port/);
    bad({ CUDASCRIPT_DIST_TIMEOUT: "-1" }, /CUDASCRIPT_DIST_TIMEOUT=-1 is not a time limit/);
  });
});

describe("rank output", () => {
  it("prefixes whole lines, also a last line without a newline, and turns srun --label's '  2: ' into '[rank 2] '", async () => {
    const from = new PassThrough();
    const to = new PassThrough();
    let out = "";
    to.on("data", (d) => (out += d));
    const done = pipeLines(from, to, (line) => ({ prefix: rankPrefix(1), line }));
    from.write("a\nb");
    from.write("c\n");
    from.end("tail");
    await done;
    assert.equal(out, "[rank 1] a\n[rank 1] bc\n[rank 1] tail\n");
    assert.deepEqual(relabelSlurmLine("  2: hello: world"), { prefix: "[rank 2] ", line: "hello: world" });
    assert.deepEqual(relabelSlurmLine("srun: error: x"), { prefix: "", line: "srun: error: x" });
  });
});
