/**
 * `buildProgram` with `cudaArchs` (the GPU path of `cudascript run`) compiles the kernels with NVRTC at
 * build time. It runs in a child process here, as `cudascript run` does, to see whether it survives:
 * deeply nested kernels crashed it while NVRTC ran on koffi's 128 KiB async stack, and a crash of
 * NVRTC must be a build error (CS9003), not the end of the process.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { REPO } from "../simulator/helpers";

const RUN_COMMAND = path.join(REPO, "runtime", "dist", "cli", "run-command.js");
const NESTED = path.join(REPO, "test", "corpus", "valid", "deeply_nested.ts");

function buildInChild(t: { after(fn: () => void): void }, env: NodeJS.ProcessEnv = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-build-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const outfile = path.join(dir, "bundle.mjs");
  const script = `require(${JSON.stringify(RUN_COMMAND)}).buildProgram(${JSON.stringify(NESTED)}, ${JSON.stringify(outfile)}, { cudaArchs: ["sm_80"] }).then((ok) => process.stdout.write(String(ok)));`;
  const r = spawnSync(process.execPath, ["-e", script], { cwd: REPO, encoding: "utf8", env: { ...process.env, CUDASCRIPT_CACHE_DIR: path.join(dir, "cache"), ...env } });
  return { ...r, outfile };
}

describe("buildProgram with cudaArchs", () => {
  it("embeds PTX for deeply nested kernels: a Horner polynomial, 100 nested ifs, a 500-term sum", (t) => {
    if (!nvrtcOrSkip(t)) return;
    const r = buildInChild(t);
    assert.equal(r.signal, null, "NVRTC must not take the build down");
    assert.equal(r.stdout, "true", r.stderr);
    const bundle = fs.readFileSync(r.outfile, "utf8");
    for (const k of ["horner", "nestedIfs", "longSum"]) assert.ok(bundle.includes(`.visible .entry ${k}(`), `PTX of ${k} embedded`);
  });

  it("a crash of NVRTC fails the build with CS9003 at the kernel", (t) => {
    if (!nvrtcOrSkip(t)) return;
    const r = buildInChild(t, { CUDASCRIPT_NVRTC_STACK_KIB: "64" }); // NVRTC really crashes on a 64 KiB stack
    assert.equal(r.signal, null);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, "false");
    assert.match(r.stderr, /CS9003: NVRTC crashed \(SIGSEGV\) while compiling deeply_nested\.cu/);
    assert.match(r.stderr, /deeply_nested\.ts:8:/);
  });
});
