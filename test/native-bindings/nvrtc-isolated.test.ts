// NVRTC in its compile child process: deeply nested code compiles (NVRTC gets a 16 MiB stack), and a
// crash of NVRTC is a result (NVRTC_CRASHED) for the caller instead of the end of the calling process.
import assert from "node:assert/strict";
import { test } from "node:test";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { NVRTC_CRASHED, type CompileRequest } from "@cudascript/native-bindings";

/** `o[0] = ((((c0)*x+c1)*x+c2)…)`: a Horner polynomial with `depth` nested parentheses. */
function horner(depth: number): CompileRequest {
  let e = "c0";
  for (let i = 1; i <= depth; i++) e = `(${e})*x+c${i % 4}`;
  const source = `extern "C" __global__ void horner(float* o, float x) { float c0 = 1, c1 = 2, c2 = 3, c3 = 4; o[0] = ${e}; }`;
  return { source, name: "horner.cu", options: ["--gpu-architecture=compute_80"] };
}

test("compileAsync compiles nesting that overflowed koffi's 128 KiB async stack (20 to 3,000 parentheses)", async (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  for (const depth of [20, 40, 3000]) {
    const r = await nvrtc.compileAsync(horner(depth));
    assert.equal(r.ok, true, `${depth}: ${r.errorCode} ${r.log}`);
    assert.match(r.ptx!, /\.visible \.entry horner\(/);
  }
});

test("a crash of NVRTC is an NVRTC_CRASHED result, and later compiles get a new child", async (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  // 20,000 nested parentheses overflow even the 16 MiB stack: NVRTC really dies of SIGSEGV.
  const [before, crashed, after] = await Promise.all([nvrtc.compileAsync(horner(3)), nvrtc.compileAsync(horner(20_000)), nvrtc.compileAsync(horner(4))]);
  assert.equal(before.ok, true, before.log);
  assert.equal(crashed.ok, false);
  assert.equal(crashed.errorCode, NVRTC_CRASHED);
  assert.equal(crashed.crashed?.signal, "SIGSEGV");
  assert.equal(crashed.log, "NVRTC crashed (SIGSEGV) while compiling horner.cu");
  assert.equal(after.ok, true, after.log);
  assert.match(after.ptx!, /\.visible \.entry horner\(/);
});

test("the synchronous compile is isolated the same way", (t) => {
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const crashed = nvrtc.compile(horner(20_000));
  assert.equal(crashed.errorCode, NVRTC_CRASHED);
  assert.equal(crashed.crashed?.signal, "SIGSEGV");
  const deep = nvrtc.compile(horner(3000));
  assert.equal(deep.ok, true, deep.log);
});
