import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { KernelChecker } from "../checker/checker";
import { emitStepModule } from "./emit-step";

function module(src: string) {
  const checker = new KernelChecker();
  const file = path.join(__dirname, "__emit_step_test.ts");
  checker.setFileText(file, src);
  const r = checker.checkFile(file);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error"), []);
  return r.module;
}

const SRC = `import { cuda, f32 } from "cudascript";
const half = cuda.device((x: f32): f32 => x / 2);
export const k = cuda.jit((a: Float32Array) => {
  const t = cuda.threadIdx.x;
  let s = 0;
  for (let j = 0; j < 4; j++) {
    s += half(a[t]);
  }
  if (t < a.length) a[t] = cuda.shflDownSync(0xffffffff, s, 1);
});
`;

describe("stepping backend emitter (IR → per-thread generators)", () => {
  it("every function is a generator; each statement checks its line flag and yields its statement site", () => {
    const m = emitStepModule(module(SRC));
    assert.match(m.source, /function\* \$d0_half\(/);
    assert.match(m.source, /function\* \$k0_k\(/);
    const lines = m.statements.map((s) => s.line);
    // The statement lines of the kernel and the device function (the loop update has no stop of its own).
    assert.deepEqual([...new Set(lines)].sort((a, b) => a - b), [2, 4, 5, 6, 7, 9]);
    for (const [site, st] of m.statements.entries()) assert.ok(m.source.includes(`if ($S.on[${st.lineId}] !== 0 && $S.stop(${site})) yield ${site};`), `statement ${site}`);
    assert.deepEqual(m.lines[m.statements[0]!.lineId], { file: m.statements[0]!.file, line: m.statements[0]!.line });
  });

  it("loop updates stay one comma expression, calls delegate with yield*, warp operations go to the scheduler", () => {
    const src = emitStepModule(module(SRC)).source;
    // The condition first counts the pass down and may end the time slice (pause, time limit): $S.tick.
    assert.match(src, /for \(; \(\(--\$S\.bud < 0 && \$S\.tick\(\d+\) && \(yield -2\)\), \(j\$\d+ < 4\)\); j\$\d+ = \(\(j\$\d+ \+ 1\) \| 0\)\)/);
    assert.match(src, /yield\* \$d0_half\(/);
    assert.match(src, /yield \$S\.req\("shflDownSync", \d+, 4294967295, s\$\d+, 1\)/);
  });

  it("scopes: a variable is visible after its declaration, loop variables inside the loop only", () => {
    const m = emitStepModule(module(SRC));
    const k = m.functions[m.kernels.k!]!;
    const names = (line: number) => m.statements.find((s) => s.line === line && s.fn === m.kernels.k)!.visible.map((i) => k.vars[i]!.name);
    assert.deepEqual(names(4), ["a"]);
    assert.deepEqual(names(7), ["a", "t", "s", "j"]);
    assert.deepEqual(names(9), ["a", "t", "s"]);
  });
});
