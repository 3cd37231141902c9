/**
 * Bulk counting (compiler/src/js/emit/profile-bulk.ts) over the whole valid corpus: every case's
 * launches profiled with it and with every site counted per thread (CUDASCRIPT_PROFILE_PER_THREAD=1)
 * give the same report. Real compiler, real simulator; no GPU.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { cuda, type ProfileReport } from "cudascript";
import type { CorpusCase } from "../corpus/case";
import { toDevice } from "../corpus/device";
import { compileFile, kernel, REPO } from "../simulator/helpers";

const VALID = path.join(REPO, "test", "corpus", "valid");
const files = fs.readdirSync(VALID).filter((f) => f.endsWith(".ts") && !f.endsWith(".ref.ts")).sort();

/** The case's launches, profiled; a refusal (a grid barrier: CSR092) as its code. */
function profileCase(artifact: ReturnType<typeof compileFile>, c: CorpusCase, perThread: boolean): ProfileReport | string {
  const saved = process.env.CUDASCRIPT_PROFILE_PER_THREAD;
  process.env.CUDASCRIPT_PROFILE_PER_THREAD = perThread ? "1" : "0";
  try {
    const device: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(c.setup())) device[k] = toDevice(v);
    return cuda.profile(() => {
      for (const l of c.launches) kernel(artifact, l.kernel).launch(l.grid, l.block, { sharedMem: l.sharedMem })(...l.args.map((a) => device[a]));
    });
  } catch (e) {
    return String((e as { code?: string }).code ?? e);
  } finally {
    if (saved === undefined) delete process.env.CUDASCRIPT_PROFILE_PER_THREAD;
    else process.env.CUDASCRIPT_PROFILE_PER_THREAD = saved;
  }
}

describe("bulk counting over the valid corpus", () => {
  for (const f of files)
    it(`${f}: the same report as per-thread counting`, () => {
      const artifact = compileFile(path.join(VALID, f));
      const { cases } = require(path.join(REPO, "test", "dist", "corpus", "valid", f.replace(/\.ts$/, ".ref.js"))) as { cases: CorpusCase[] };
      for (const c of cases) {
        const bulk = profileCase(artifact, c, false), each = profileCase(artifact, c, true);
        if (typeof each === "string") assert.equal(bulk, each, `${c.name}: the same refusal`);
        else assert.deepEqual((bulk as ProfileReport).launches, each.launches, c.name);
      }
    });
});
