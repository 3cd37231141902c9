/**
 * dist's NCCL path on the GPU backend, without GPUs: the libcuda TEST DOUBLE (test/driver-double) and
 * an NCCL TEST DOUBLE (test/distributed/nccl-double/libnccl.c, built here with gcc: ranks meet in
 * POSIX shared memory named by the unique id, and move device bytes through the libcuda double's
 * cuMemcpy). Neither is NVIDIA's. What is real: NCCL's discovery and binding through koffi, the unique
 * id made by rank 0 and broadcast through the rendezvous, the agreement of all ranks to use NCCL, the
 * device pointers handed to NCCL, and the results, which equal the simulator's over TCP.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { before, describe, it } from "node:test";
import { buildDriverDouble } from "../driver-double/test-double";
import { FIXTURES, launch, survivors } from "./helpers";

const FIXTURE = path.join(FIXTURES, "nccl-collectives.ts");

function buildNcclDouble(): { ok: true; path: string } | { ok: false; reason: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cs-nccl-double-"));
  const out = path.join(dir, "libnccl.so.2");
  const source = path.join(__dirname, "..", "..", "distributed", "nccl-double", "libnccl.c"); // from test/dist/distributed
  const r = spawnSync("gcc", ["-shared", "-fPIC", "-O1", "-o", out, source, "-lrt", "-ldl"], { encoding: "utf8" });
  return r.status === 0 ? { ok: true, path: out } : { ok: false, reason: `gcc failed: ${r.error?.message ?? r.stderr}` };
}

const ranksLines = (stdout: string) => stdout.split("\n").filter((l) => /^\[rank \d\] rank \d: /.test(l)).sort();

describe("dist through NCCL on the GPU backend (libcuda and NCCL test doubles)", () => {
  let env: NodeJS.ProcessEnv | undefined;
  let log = "";
  let skip: string | false = false;
  before(() => {
    const cuda = buildDriverDouble();
    const nccl = buildNcclDouble();
    if (!cuda.ok || !nccl.ok) {
      const why = !cuda.ok ? cuda.reason : !nccl.ok ? nccl.reason : "";
      if (process.env.CI === "true") assert.fail(why);
      skip = why;
      return;
    }
    log = path.join(path.dirname(nccl.path), "calls.log");
    env = { CUDASCRIPT_LIBCUDA: cuda.path, CUDASCRIPT_NCCL: nccl.path, NCCL_DOUBLE_LOG: log };
  });

  it("runs allReduce, broadcast, allGather and reduceScatter through NCCL on 3 ranks, with the simulator's results", async (t) => {
    if (skip) return t.skip(skip);
    const gpu = await launch(["-n", "3", "--backend", "gpu", FIXTURE], env);
    assert.equal(gpu.code, 0, gpu.stderr);
    assert.match(gpu.stderr, /as 3 ranks on the GPUs of this machine/);
    const sim = await launch(["-n", "3", "--backend", "simulator", FIXTURE]);
    assert.equal(sim.code, 0, sim.stderr);
    assert.deepEqual(ranksLines(gpu.stdout), ranksLines(sim.stdout));
    assert.deepEqual(ranksLines(gpu.stdout), ["[rank 0] rank 0: 6,1.5 | 10 | 0,1,2 | 2", "[rank 1] rank 1: 6,1.5 | 10 | 0,1,2 | 3", "[rank 2] rank 2: 6,1.5 | 10 | 0,1,2 | 4"]);
    const calls = fs.readFileSync(log, "utf8").trim().split("\n").sort();
    for (const rank of [0, 1, 2])
      for (const call of ["ncclCommInitRank 3", "ncclAllReduce 2", "ncclBroadcast 1", "ncclAllGather 1", "ncclReduceScatter 1"]) assert.ok(calls.includes(`${rank} ${call}`), `${rank} ${call} in\n${calls.join("\n")}`);
  });

  it("CUDASCRIPT_DIST_NCCL=0 keeps the TCP transport on the GPU backend (same results, no NCCL call)", async (t) => {
    if (skip) return t.skip(skip);
    fs.rmSync(log, { force: true });
    const r = await launch(["-n", "2", "--backend", "gpu", FIXTURE], { ...env, CUDASCRIPT_DIST_NCCL: "0" });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(ranksLines(r.stdout), ["[rank 0] rank 0: 3,1 | 10 | 0,1 | 1", "[rank 1] rank 1: 3,1 | 10 | 0,1 | 2"]);
    assert.equal(fs.existsSync(log), false);
  });

  it("an NCCL error is CSR078 with NCCL's own text, and ends the job", async (t) => {
    if (skip) return t.skip(skip);
    const r = await launch(["-n", "2", "--backend", "gpu", FIXTURE, "f16"], env);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error CSR078: ncclAllReduce failed with NCCL error 4: invalid argument \(NCCL test double\)/);
    assert.deepEqual(await survivors(r.pids), []);
  });
});
