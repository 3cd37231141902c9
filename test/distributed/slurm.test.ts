/**
 * `cudascript launch --launcher slurm` on a real Slurm cluster: the one-node cluster .ci/slurm-cluster.sh
 * starts (Debian's slurmctld, slurmd and munge; Gres=gpu:4 counted, no GPU). Four ranks through srun
 * split an array, launch a kernel each on the simulator and allReduce; Slurm gives each rank one of the
 * four GPUs it counts. Without Slurm the tests skip saying so — except under CI=true, where a missing
 * cluster is a failure (.ci/run starts one).
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { describe, it } from "node:test";
import { CLI, FIXTURES, launch, survivors } from "./helpers";

function slurmProblem(): string | undefined {
  const srun = spawnSync("srun", ["--version"], { encoding: "utf8" });
  if (srun.error || srun.status !== 0) return "Slurm's srun is not installed";
  const sinfo = spawnSync("sinfo", ["-h", "-o", "%T"], { encoding: "utf8" });
  if (sinfo.status !== 0 || !/^(idle|mixed|allocated)/m.test(sinfo.stdout)) return `no Slurm node is up (sinfo: ${(sinfo.stdout + sinfo.stderr).trim() || "nothing"})`;
  return undefined;
}

const problem = slurmProblem();
const skip = problem && process.env.CI !== "true" ? `${problem}: start a one-node cluster with 'bash .ci/slurm-cluster.sh' (as root) to run these` : false;

describe("cudascript launch --launcher slurm (a real one-node cluster)", { skip }, () => {
  it("has a cluster to run on (under CI=true a missing one fails here)", () => {
    assert.equal(problem, undefined, `${problem}: .ci/run starts one with .ci/slurm-cluster.sh`);
  });

  it("runs 4 ranks through srun: each gets its rank from Slurm and one of the 4 counted GPUs, runs a kernel, and allReduce gives every rank the sum", async () => {
    const r = await launch(["--launcher", "slurm", "-n", "4", "--gpus-per-rank", "1", "--backend", "simulator", path.join(FIXTURES, "split-sum.ts")]);
    process.stdout.write(r.stdout); // the 4-rank job's output, in the CI log
    assert.equal(r.code, 0, r.stderr);
    const gpus = new Set<string>();
    for (let rank = 0; rank < 4; rank++) {
      const m = new RegExp(`^\\[rank ${rank}\\] rank ${rank} of 4 \\(local rank ${rank}, 1 device\\(s\\), GPUs from Slurm: (\\d+)\\): sum of squares 333833500 OK; ranks 0,1,2,3$`, "m").exec(r.stdout);
      assert.ok(m, `rank ${rank}'s line in:\n${r.stdout}\n${r.stderr}`);
      gpus.add(m[1]!);
    }
    assert.deepEqual([...gpus].sort(), ["0", "1", "2", "3"]);
    assert.match(r.stderr, /launching .*split-sum\.ts with srun as 4 ranks on the simulator/);
  });

  it("inside an allocation (salloc -n 4) srun takes the allocation's 4 tasks without -n", () => {
    const r = spawnSync("salloc", ["-n", "4", process.execPath, CLI, "launch", "--launcher", "slurm", "--backend", "simulator", path.join(FIXTURES, "split-sum.ts")], { encoding: "utf8", timeout: 120_000, env: { ...process.env, CUDASCRIPT_BACKEND: "" } });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /with srun in this allocation on the simulator/);
    for (let rank = 0; rank < 4; rank++) assert.match(r.stdout, new RegExp(`^\\[rank ${rank}\\] rank ${rank} of 4 .*sum of squares 333833500 OK`, "m"));
  });

  it("--sbatch submits a batch job, waits for it and prints its output by rank", async () => {
    const r = await launch(["--launcher", "slurm", "--sbatch", "-n", "4", "--backend", "simulator", path.join(FIXTURES, "split-sum.ts")]);
    assert.equal(r.code, 0, r.stderr);
    for (let rank = 0; rank < 4; rank++) assert.match(r.stdout, new RegExp(`^\\[rank ${rank}\\] rank ${rank} of 4 .*sum of squares 333833500 OK`, "m"));
    assert.match(r.stderr, /submitting .*split-sum\.ts with sbatch as 4 ranks/);
  });

  it("a failing rank stops the step (srun --kill-on-bad-exit) with its error; a killed one is CSR075; a hung collective is CSR074; no rank process is left", async () => {
    const failed = await launch(["--launcher", "slurm", "-n", "4", "--backend", "simulator", path.join(FIXTURES, "failures.ts"), "fail", "2"]);
    assert.notEqual(failed.code, 0);
    assert.match(failed.stderr, /^\[rank 2\] Error: rank 2 gives up on purpose$/m);
    assert.deepEqual(await survivors(failed.pids), []);
    const killed = await launch(["--launcher", "slurm", "-n", "3", "--backend", "simulator", path.join(FIXTURES, "failures.ts"), "kill", "2"]);
    assert.equal(killed.code, 137, killed.stderr);
    assert.match(killed.stderr, /error CSR075: rank 2 was killed \(Killed\); srun stopped the other ranks/);
    assert.deepEqual(await survivors(killed.pids), []);
    const hung = await launch(["--launcher", "slurm", "-n", "4", "--collective-timeout", "2", "--backend", "simulator", path.join(FIXTURES, "failures.ts"), "hang", "3"]);
    assert.notEqual(hung.code, 0);
    assert.match(hung.stderr, /\[rank 0\] cudascript: error CSR074: collective #2 .*ranks 0, 1, 2 waited 2 s .* for rank 3, which never called it/);
    assert.deepEqual(await survivors(hung.pids), []);
  });
});
