/**
 * `cudascript debug --on-fault` (runtime/src/cli/debug-command.ts), run as a user runs it: the program
 * faults under `cudascript run`; the replay stops at the faulting thread and prints the fault, the
 * line with its source, the locals, shared memory, and a race's other thread; the program then ends
 * with the fault as it did (exit code 1, the same error).
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { IMPORTS, lineIn, RACY, RAISING } from "./replay-fixtures";

const BIN = path.join(__dirname, "..", "..", "..", "runtime", "bin", "cudascript.js");
const DIR = fs.mkdtempSync(path.join(__dirname, `__replay_cli_${process.pid}_`));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

const KERNELS = `${IMPORTS}${RACY}const pick = cuda.device((a: Float32Array, i: i32): f32 => {
  return a[i]; // device read
});
export const gather = cuda.jit((a: Float32Array, idx: Int32Array, out: Float32Array) => {
  const i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
  const j = idx[i];
  if (i === 0) console.log("gather block", cuda.blockIdx.x);
  out[i] = pick(a, j); // gather
});
`;
fs.writeFileSync(path.join(DIR, "kernels.ts"), KERNELS);
fs.writeFileSync(
  path.join(DIR, "race.ts"),
  `import { cuda } from "cudascript";
import { racy } from "./kernels";
const out = cuda.deviceArray(8, "f32");
racy.launch(1, 8)(out);
console.log("clean", Array.from(out.copyToHost() as Float32Array).join(","));
`,
);
fs.writeFileSync(
  path.join(DIR, "oob.ts"),
  `import { gather } from "./kernels";
const a = new Float32Array(16).map((_, i) => i * 10);
const idx = new Int32Array(16).map((_, i) => 15 - i);
const out = new Float32Array(16);
gather.launch(1, 16)(a, idx, out); // a first launch that runs clean
console.log("first", out[0]);
idx[13] = 99;
gather.launch(2, 8)(a, idx, out);
console.log("not reached");
`,
);
const line = (marker: string) => lineIn(KERNELS, marker);

function cli(...args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { cwd: DIR, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
}

describe("cudascript debug --on-fault", { timeout: 180_000 }, () => {
  it("a shared-memory race (--sanitize): the reading thread at its line, its locals and shared memory, the writing thread as it was", () => {
    const run = cli("run", "--sanitize", "race.ts");
    assert.equal(run.status, 1);
    assert.match(run.stderr, /error CSR021/);
    const r = cli("debug", "--on-fault", "--sanitize", "race.ts");
    assert.equal(r.status, 1, r.stderr);
    const out = r.stdout;
    assert.match(out, /stopped at the fault CSR021: shared-memory race on 's\[0\]'/);
    assert.ok(out.includes(`Thread (1, 0, 0) of block (0, 0, 0):\n  in racy at kernels.ts:${line("racy read")}\n`), out);
    assert.ok(out.includes(`  >  ${line("racy read")} |     const v = s[k === 2 && t > 0 ? t - 1 : t]; // racy read`), out);
    assert.match(out, /\n {4}k = 2\n/);
    assert.match(out, /\n {4}acc = 3\n/);
    assert.match(out, /s: f32\[8\] shared = \[\*2\*, 3, 0, 0, 0, 0, 0, 0\] {3}\(element 0 is the fault's\)/);
    const other = out.slice(out.indexOf("The other access of the race"));
    assert.match(other, /^The other access of the race — thread \(0, 0, 0\) of block \(0, 0, 0\)/);
    assert.ok(other.includes(`  > ${line("write own")} |     s[t] = t + k; // write own`), other);
    assert.match(other, /\n {4}t = 0\n/);
    // Then the program ends with the fault, as the run did.
    assert.ok(r.stderr.includes(run.stderr.split("\n").find((l) => l.includes("error CSR021"))!), r.stderr);
    assert.doesNotMatch(out, /clean/);
  });

  it("without --sanitize the race is no fault: the program runs to its end and the replay says there was nothing to replay", () => {
    const r = cli("debug", "--on-fault", "race.ts");
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /clean 3,5,8,11,14,17,20,23\n/);
    assert.match(r.stderr, /ended without a kernel fault: nothing to replay; if the run's fault was a sanitizer finding, debug with the sanitizer on/);
  });

  it("CSR020 in a device function, second launch, block 1: the launch before runs clean; the stop has the call stack", () => {
    const r = cli("debug", "--on-fault", "oob.ts");
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /first 150\n/);
    assert.match(r.stdout, /stopped at the fault CSR020: out-of-bounds read of array 'a' at kernels\.ts:14:10 in kernel 'gather' \(device function 'pick'\), block \(1, 0, 0\), thread \(5, 0, 0\): index 99 is outside 0\.\.15/);
    assert.match(r.stdout, /a: f32\[16\] = \[0, 10, .*, 150\] {3}\(the fault's index 99 is outside it\)/);
    assert.ok(r.stdout.includes(`Thread (5, 0, 0) of block (1, 0, 0):\n  in pick at kernels.ts:${line("device read")}\n`), r.stdout);
    assert.match(r.stdout, /\n {4}i = 99\n/);
    assert.match(r.stdout, new RegExp(`call stack: pick \\(kernels\\.ts:${line("device read")}\\) ← gather \\(kernels\\.ts:${line("// gather")}\\)`));
    assert.doesNotMatch(r.stdout, /not reached/);
    // Kernel output once per launch: the faulting launch's first run holds it back, its replay prints it.
    assert.equal(r.stdout.split("\n").filter((l) => l === "gather block 0").length, 2, r.stdout);
    assert.match(r.stderr, /error CSR020/);
  });

  it("--kernel: a kernel from its @run tag (a thrown error in block 1)", () => {
    fs.writeFileSync(
      path.join(DIR, "tagged.ts"),
      `${IMPORTS}${RAISING}`,
    );
    const r = cli("debug", "--on-fault", "--kernel", "raising", "tagged.ts");
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stdout, /stopped at the fault CSR085: kernel raised an error/);
    assert.ok(r.stdout.includes(`Thread (2, 0, 0) of block (1, 0, 0):\n  in raising at tagged.ts:${lineIn(IMPORTS + RAISING, "// raise")}\n`), r.stdout);
    assert.match(r.stdout, /\n {4}k = 1\n/);
    assert.equal(cli("debug", "--on-fault", "--kernel", "nope", "tagged.ts").status, 1);
  });

  it("refuses what it cannot do with a usage error (exit 2)", () => {
    assert.equal(cli("debug", "race.ts").status, 2);
    assert.equal(cli("debug", "--on-fault").status, 2);
    const r = cli("debug", "--on-fault", "--uninitialized-shared", "loud", "--sanitize", "race.ts");
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--uninitialized-shared takes warn or error, not 'loud'/);
  });
});
