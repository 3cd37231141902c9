/**
 * `cudascript launch --launcher local` on the simulator: a 4-rank job whose ranks split an array, run a
 * kernel each and allReduce; the example's result on 1, 2 and 4 ranks; and a rank that fails, is
 * killed, hangs in a collective or calls another collective: each ends the job with its code and no
 * process left running.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { spawn } from "node:child_process";
import { CLI, FIXTURES, launch, survivors } from "./helpers";
import { REPO } from "../simulator/helpers";

const SIM = ["--backend", "simulator"];

describe("cudascript launch --launcher local", () => {
  it("runs 4 ranks that split an array, launch a kernel each and allReduce: every rank has the sum, every line is prefixed with its rank", async () => {
    const r = await launch([...SIM, "-n", "4", path.join(FIXTURES, "split-sum.ts")]);
    assert.equal(r.code, 0, r.stderr);
    for (let rank = 0; rank < 4; rank++)
      assert.match(r.stdout, new RegExp(`^\\[rank ${rank}\\] rank ${rank} of 4 \\(local rank ${rank}, 4 device\\(s\\).*sum of squares 333833500 OK; ranks 0,1,2,3$`, "m"));
    assert.match(r.stderr, /launching .*split-sum\.ts as 4 ranks on the simulator \(4 virtual devices\)/);
  });

  it("examples/dist-montecarlo.ts gives the same count of points on 1, 2 and 4 ranks, on every rank", async () => {
    const lines: string[] = [];
    for (const n of ["1", "2", "4"]) {
      const r = await launch([...SIM, "-n", n, "examples/dist-montecarlo.ts"]);
      assert.equal(r.code, 0, r.stderr);
      const results = [...r.stdout.matchAll(/rank \d+ of \d+: (\d+ of \d+ points inside, π ≈ [\d.]+) — OK/g)].map((m) => m[1]!);
      assert.equal(results.length, Number(n), r.stdout);
      lines.push(...results);
    }
    assert.equal(new Set(lines).size, 1, lines.join("\n"));
    assert.match(lines[0]!, /^1206801 of 1536000 points inside/);
  });

  it("a rank that throws stops the job: its error and exit code, the other ranks stopped, no process left", async () => {
    const r = await launch([...SIM, "-n", "3", path.join(FIXTURES, "failures.ts"), "fail", "1"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^\[rank 1\] Error: rank 1 gives up on purpose$/m);
    assert.match(r.stderr, /rank 1 failed \(exit code 1\): its error is above; the other ranks were stopped/);
    assert.equal(r.pids.length, 3, r.stdout);
    assert.deepEqual(await survivors(r.pids), []);
  });

  it("a rank killed by a signal is CSR075 and exit code 137; no process left", async () => {
    const r = await launch([...SIM, "-n", "3", path.join(FIXTURES, "failures.ts"), "kill", "2"]);
    assert.equal(r.code, 137);
    assert.match(r.stderr, /error CSR075: rank 2 was killed by SIGKILL/);
    assert.equal(r.pids.length, 3, r.stdout);
    assert.deepEqual(await survivors(r.pids), []);
  });

  it("a hung collective ends at the collective time limit with CSR074 naming the missing rank; the hung rank is killed", async () => {
    const started = Date.now();
    const r = await launch([...SIM, "-n", "3", "--collective-timeout", "2", path.join(FIXTURES, "failures.ts"), "hang", "1"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\[rank 0\] cudascript: error CSR074: collective #2 \(dist\.allReduce\(f32\[1\], "sum"\)\): ranks 0, 2 waited 2 s .* for rank 1, which never called it/);
    assert.ok(Date.now() - started < 60_000);
    assert.equal(r.pids.length, 3, r.stdout);
    assert.deepEqual(await survivors(r.pids), []);
  });

  it("a recv whose peer never sends ends at the time limit with CSR074 naming both ranks", async () => {
    const r = await launch([...SIM, "-n", "2", "--collective-timeout", "2", path.join(FIXTURES, "failures.ts"), "silent", "1"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\[rank 0\] cudascript: error CSR074: rank 0's dist\.recv from rank 1 waited longer than 2 s/);
    assert.deepEqual(await survivors(r.pids), []);
  });

  it("ranks die with a launcher that is SIGKILLed (their watchdog), even one spinning in a host loop", async () => {
    const launcher = spawn(process.execPath, [CLI, "launch", ...SIM, "-n", "2", "--collective-timeout", "100", path.join(FIXTURES, "failures.ts"), "hang", "1"], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    launcher.stdout.on("data", (d) => (out += d));
    const deadline = Date.now() + 60_000;
    while ((out.match(/pid \d+/g) ?? []).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const pids = [...out.matchAll(/pid (\d+)/g)].map((m) => Number(m[1]));
    launcher.kill("SIGKILL");
    assert.equal(pids.length, 2, out);
    assert.deepEqual(await survivors(pids, 5000), []);
  });

  it("ranks that call different collectives at the same step fail with CSR072 saying which", async () => {
    const r = await launch([...SIM, "-n", "2", "--collective-timeout", "20", path.join(FIXTURES, "failures.ts"), "mismatch", "1"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /error CSR072: the ranks disagree at collective #2: rank 0 called dist\.allReduce\(f32\[1\], "sum"\), rank 1 called dist\.broadcast\(f32\[1\], root 0\)/);
    assert.deepEqual(await survivors(r.pids), []);
  });

  it("--timeout stops the whole job (exit 124); usage errors are exit 2 with the usage", async () => {
    const r = await launch([...SIM, "-n", "2", "--timeout", "3", "--collective-timeout", "100", path.join(FIXTURES, "failures.ts"), "hang", "0"]);
    assert.equal(r.code, 124, r.stderr);
    assert.match(r.stderr, /the job ran longer than --timeout 3 s and was stopped/);
    assert.deepEqual(await survivors(r.pids), []);
    const bad = await launch(["--launcher", "mpi", path.join(FIXTURES, "split-sum.ts")]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--launcher takes local, slurm or kubernetes, not 'mpi'/);
    const k8s = await launch(["--launcher", "kubernetes", path.join(FIXTURES, "split-sum.ts")]);
    assert.equal(k8s.code, 2);
    assert.match(k8s.stderr, /--launcher kubernetes needs --image/);
  });
});

describe("collectives across 3 ranks", () => {
  it("allReduce (sum f32 in rank order, max i32, prod i64), broadcast, allGather, reduceScatter, barrier and a send/recv ring agree with plain TypeScript on every rank", async () => {
    const r = await launch([...SIM, "-n", "3", path.join(FIXTURES, "collectives.ts")]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const oks = r.stdout.split("\n").filter((l) => / OK$/.test(l));
    assert.equal(oks.length, 3 * 7, r.stdout);
    assert.doesNotMatch(r.stdout, /WRONG/);
  });
});
