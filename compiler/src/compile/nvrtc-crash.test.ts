// NVRTC runs in a child process: deeply nested kernels compile on both entry points, and a crash of
// NVRTC is a CS9003 diagnostic at the kernel, with this process still alive.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nvrtcOrSkip } from "../../../test/dist/support/toolchain-or-skip";
import { checkKernel } from "../../../test/dist/support/check-sources";
import type { IrModule } from "../ir/nodes";
import { compileModule, compileModuleSync } from "./compile";

function moduleOf(body: string): IrModule {
  const r = checkKernel(body);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  return r.module;
}

// A 20-coefficient Horner polynomial (18 nested parentheses): the async compile crashed the process.
const HORNER = `export const horner = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    const v = x[i];
    out[i] = ${Array.from({ length: 19 }, (_, k) => k + 1).reduce((e, k) => `(${e}) * v + ${k}`, "v")};
  }
});`;

test("a 20-coefficient Horner polynomial compiles with compileModule and compileModuleSync", async (t) => {
  if (!nvrtcOrSkip(t)) return;
  const m = moduleOf(HORNER);
  const a = await compileModule(m, { cache: false });
  assert.ok(a.ok, a.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  assert.match(a.ptx!, /\.visible \.entry horner\(/);
  const s = compileModuleSync(m, { cache: false });
  assert.equal(s.ptx, a.ptx);
});

// 20,000 nested parentheses overflow even the compile child's 16 MiB stack: NVRTC really crashes.
const crashNvrtc = (cuda: string) => cuda.replace(/out\[i\] = [^;]*;/, `out[i] = ${"(".repeat(20_000)}v${")".repeat(20_000)};`);

for (const [name, compile] of [
  ["compileModule", compileModule],
  ["compileModuleSync", compileModuleSync],
] as const) {
  test(`${name}: a crash of NVRTC is CS9003 at the kernel, not the end of the process`, async (t) => {
    if (!nvrtcOrSkip(t)) return;
    const m = moduleOf(HORNER);
    const r = await compile(m, { transformSource: crashNvrtc });
    assert.equal(r.ok, false);
    assert.deepEqual(
      r.diagnostics.map((d) => [d.code, d.span.line]),
      [["CS9003", m.kernels[0]!.span.line]],
    );
    assert.match(r.diagnostics[0]!.message, /^NVRTC crashed \(SIGSEGV\) while compiling k\.cu \(the CUDA C\+\+ generated for kernel 'horner'\), so nothing was compiled\. /);
    assert.match(r.diagnostics[0]!.message, /split long expressions into `const` steps/);
    assert.equal(r.ptx, undefined);
    // The next compile works (a new compile child where the crashed one was).
    const again = await compile(m, { cache: false });
    assert.ok(again.ok, again.diagnostics.map((d) => d.message).join("\n"));
  });
}
