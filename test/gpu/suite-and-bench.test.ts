// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver, through the
// scripts' --double flag — and runs them without any driver. Proves that the real-GPU suite
// (test/gpu/run-gpu-suite.mjs, `npm run test:gpu`) and bench/launch.mjs skip with a clear message
// and exit 0 where there is no GPU, and that on the double they run every step up to the result
// comparison (the double runs no kernels: the suite then compares the outputs with the uploaded
// inputs; --compare-simulator shows that a real difference is reported and fails the run).
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { childEnv, doublePathOrSkip, REPO, runNode } from "./helpers";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";

const SUITE = path.join(REPO, "test", "gpu", "run-gpu-suite.mjs");
const BENCH = path.join(REPO, "bench", "launch.mjs");

describe("npm run test:gpu and bench/launch.mjs", () => {
  it("skip with a message and exit 0 without a GPU", () => {
    const env = childEnv("off");
    const suite = runNode([SUITE, "--no-build"], env);
    assert.equal(suite.code, 0, suite.all);
    assert.match(suite.out, /^no GPU: skipping the real-GPU suite \(\d+ corpus files and examples would run on the GPU and be compared with the simulator\)\./);
    assert.match(suite.out, /why: /);
    const bench = runNode([BENCH], env);
    assert.equal(bench.code, 0, bench.all);
    assert.match(bench.out, /^no GPU: /);
  });

  it("the suite on the double: every corpus case compiled, loaded, launched, copied back; timings from events", (t) => {
    if (!doublePathOrSkip(t) || !nvrtcOrSkip(t)) return;
    const r = runNode([SUITE, "--double", "--no-build", "--filter", "s"], childEnv(undefined), 300_000);
    assert.equal(r.code, 0, r.all);
    assert.match(r.out, /^Real-GPU suite: \d+ corpus files and examples on GPU 0: CudaScript Test Double \(sm_80/);
    assert.match(r.out, /^ok {3}saxpy\.ts {2}\(PTX compute_80 from (nvrtc|cache), load [^,]+, no FMA contraction\)/m);
    assert.match(r.out, /^ok {3}examples\/saxpy\.ts {2}\(PTX compute_80 from (nvrtc|cache), load [^,]+, no FMA contraction\)\n {7}not run as a program on the double/m);
    assert.match(r.out, /ok {3}saxpy n=1000, block=128, partial last block {2}— GPU 1\.00 ms \(events; 1 launch\), simulator/);
    assert.match(r.out, /^(\d+)\/\1 cases agree \(double: copies round-trip, launches issued; kernels not run\); 0 mismatched, 0 errors, 0 files failed to run/m);
  });

  it("the suite reports a difference with the simulator and exits 1 (--compare-simulator on the double)", (t) => {
    if (!doublePathOrSkip(t) || !nvrtcOrSkip(t)) return;
    const r = runNode([SUITE, "--double", "--no-build", "--compare-simulator", "--filter", "saxpy"], childEnv(undefined), 300_000);
    assert.equal(r.code, 1, r.all);
    assert.match(r.out, /^FAIL saxpy\.ts/m);
    assert.match(r.out, /DIFF saxpy n=1000, block=128, partial last block/);
    assert.match(r.out, /GPU ≠ simulator:\n {12}out: 1000 of 1000 elements differ \(tolerance 0\.000001 \+ 0\.00001·\|expected\|\): \[0\] = 0, expected /);
    // The example runs as a program too (only plain --double skips that): its own check fails on the double.
    assert.match(r.out, /^FAIL examples\/saxpy\.ts .*\n {7}DIFF runs on the GPU and passes its own check against plain TypeScript\n {12}exit 1:/m);
    assert.match(r.out, /0\/5 cases agree/);
  });

  it("bench/launch.mjs --double --quick runs every measurement, labelled as double numbers", (t) => {
    if (!doublePathOrSkip(t) || !nvrtcOrSkip(t)) return;
    const r = runNode([BENCH, "--double", "--quick", "--json"], childEnv(undefined), 300_000);
    assert.equal(r.code, 0, r.all);
    const j = JSON.parse(r.out) as { label: string; launches: { kernel: string; hostApi: number; bindings: number; cParams: number }[]; bandwidth: { memory: string; dir: string }[]; perArgument: Record<string, unknown> };
    assert.equal(j.label, "double");
    assert.deepEqual(j.launches.map((l) => l.kernel), ["s0", "s1", "s2", "s4", "s8", "s16", "a1", "a2", "a4", "a8"]);
    assert.deepEqual(j.launches.map((l) => l.cParams), [0, 1, 2, 4, 8, 16, 2, 4, 8, 16]);
    assert.ok(j.launches.every((l) => l.hostApi > 0 && l.bindings > 0));
    assert.deepEqual(new Set(j.bandwidth.map((b) => `${b.memory} ${b.dir}`)), new Set(["pageable HtoD", "pageable DtoH", "pinned HtoD", "pinned DtoH"]));
    assert.deepEqual(Object.keys(j.perArgument), ["hostApi", "configured", "backend", "bindings"]);
  });

  it("bench/launch.mjs --double --quick prints the fast path's before/after table (time and bytes per launch) beside the anchors, and exits 0", (t) => {
    if (!doublePathOrSkip(t) || !nvrtcOrSkip(t)) return;
    const r = runNode([BENCH, "--double", "--quick"], childEnv(undefined), 300_000);
    assert.equal(r.code, 0, r.all);
    // The table's header and rows, not its numbers (they depend on the machine and its load).
    assert.match(r.out, /^Launch fast path, host API k\.launch\(g, b\)\(…\), before \(generic path\) and after \(fast path\) \(double: the libcuda test double, not a GPU\):$/m);
    assert.match(r.out, /^args +driver floor µs +before µs +before B\/launch +after µs +after B\/launch +after − floor µs +anchor µs\/launch \(on GPUs\)$/m);
    for (const row of ["0 scalars", "1 scalar", "2 scalars", "4 scalars", "4 arrays", "8 arrays"]) assert.match(r.out, new RegExp(`^${row} +[\\d.]+ `, "m"), row);
    assert.match(r.out, /numba-cuda 6\.6 \/ 10\.6 \/ 14\.1 µs .*C driver API ~4\.9 µs, CUDA\.jl 1\.65 µs/);
  });
});
