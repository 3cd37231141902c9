// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver, in child
// processes (children/printf-child.ts). The double models device printf as the driver does: a
// launch's output waits in the context's FIFO until a synchronization point, and what does not
// fit in the FIFO (CU_LIMIT_PRINTF_FIFO_SIZE) is dropped.
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { childEnv, doublePathOrSkip, REPO, runNode } from "./helpers";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";

const CHILD = path.join(REPO, "test", "dist", "gpu", "children", "printf-child.js");

describe("kernel console.log on the GPU backend (libcuda TEST DOUBLE, child processes)", () => {
  it("output of a kernel launched just before the program ends is printed at exit, without any synchronization", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib || !nvrtcOrSkip(t)) return;
    const r = runNode([CHILD, "exit-without-sync"], childEnv(lib, { CUDASCRIPT_BACKEND: "gpu" }));
    assert.equal(r.code, 0, r.all);
    const lines = r.out.trim().split("\n");
    assert.match(lines[0]!, /^launched /);
    assert.deepEqual(lines.slice(1), Array.from({ length: 8 }, (_, i) => `hello from thread ${i}`));
  });

  it("a kernel fault found by the exit flush is reported on stderr with its code and fails the exit code", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib || !nvrtcOrSkip(t)) return;
    const r = runNode([CHILD, "fault-at-exit"], childEnv(lib, { CUDASCRIPT_BACKEND: "gpu" }));
    assert.equal(r.code, 1, r.all);
    assert.match(r.err, /^cudascript: CSR040: kernel 'hello' failed on GPU 0 .*CUDA_ERROR_ILLEGAL_ADDRESS.*flushing kernel console\.log output at exit/m);
    assert.doesNotMatch(r.out, /hello from thread/, "a faulting kernel prints nothing");
  });

  it("CUDASCRIPT_PRINTF_BUFFER sizes the printf FIFO; output beyond it is dropped; resizing after a printing launch is CSR049", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib || !nvrtcOrSkip(t)) return;
    const r = runNode([CHILD, "small-fifo"], childEnv(lib, { CUDASCRIPT_BACKEND: "gpu", CUDASCRIPT_PRINTF_BUFFER: "64" }));
    assert.equal(r.code, 0, r.all);
    const lines = r.out.trim().split("\n");
    // 64 bytes hold three 20-byte lines; the other five were dropped.
    assert.deepEqual(lines.slice(1, 4), ["hello from thread 0", "hello from thread 1", "hello from thread 2"]);
    const report = JSON.parse(lines[4]!) as { printfBufferSize: number; dropped: number; resize: string };
    assert.equal(report.printfBufferSize, 64);
    assert.equal(report.dropped, 5 * 20);
    assert.match(report.resize, /^CSR049: the printf buffer of GPU 0 .* cannot be resized to 4096 bytes: a kernel that uses console\.log has already been launched/);
  });

  it("an invalid CUDASCRIPT_PRINTF_BUFFER is CSR049 saying what to write", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib || !nvrtcOrSkip(t)) return;
    const r = runNode([CHILD, "exit-without-sync"], childEnv(lib, { CUDASCRIPT_BACKEND: "gpu", CUDASCRIPT_PRINTF_BUFFER: "lots" }));
    assert.notEqual(r.code, 0);
    assert.match(r.all, /CSR049: CUDASCRIPT_PRINTF_BUFFER=lots is not a printf buffer size: write a positive whole number of bytes or a size such as 8MiB/);
  });
});
