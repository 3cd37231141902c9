/**
 * Every valid corpus kernel on the simulator: the result equals the plain-TypeScript reference for
 * every case (exactly for integer outputs, the case's tolerance for floats), run in-process (one
 * executor), spread over two worker threads, and with the sanitizer on (which must find nothing).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it, after } from "node:test";
import { configureSimulator, cuda } from "cudascript";
import { isTypedData, type CorpusCase, type HostNDArray, type HostTypedArray } from "../corpus/case";
import { toDevice } from "../corpus/device";
import { compileFile, kernel, REPO } from "./helpers";

const VALID = path.join(REPO, "test", "corpus", "valid");
const files = fs.readdirSync(VALID).filter((f) => f.endsWith(".ts") && !f.endsWith(".ref.ts")).sort();

type Mode = { name: string; workers: number; threshold: number; main: boolean; sanitize: boolean };
const MODES: Mode[] = [
  { name: "1 worker", workers: 1, threshold: 1 << 30, main: true, sanitize: false },
  { name: "2 workers", workers: 2, threshold: 0, main: false, sanitize: false },
  { name: "sanitizer", workers: 1, threshold: 1 << 30, main: true, sanitize: true },
];

function compare(name: string, got: HostTypedArray, want: HostTypedArray, tol: CorpusCase["tolerance"]): void {
  assert.equal(got.length, want.length, `${name}: length`);
  if (want instanceof BigInt64Array || want instanceof BigUint64Array) {
    assert.deepEqual([...got], [...want], `${name}: 64-bit integers compare exactly`);
    return;
  }
  for (let i = 0; i < want.length; i++) {
    const a = got[i] as number, b = want[i] as number;
    if (Number.isNaN(a) && Number.isNaN(b)) continue;
    const ok = tol ? Math.abs(a - b) <= tol.abs + tol.rel * Math.abs(b) : a === b;
    if (!ok) assert.fail(`${name}[${i}] = ${a}, expected ${b}${tol ? ` (tolerance ${tol.abs} + ${tol.rel}·|expected|)` : " exactly"}`);
  }
}

after(() => configureSimulator({ workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true, sanitize: false }));

for (const mode of MODES) {
  describe(`valid corpus on the simulator (${mode.name})`, () => {
    for (const f of files) {
      it(f, () => {
        configureSimulator({ workers: mode.workers, inProcessThreshold: mode.threshold, mainThreadExecutes: mode.main, sanitize: mode.sanitize });
        const artifact = compileFile(path.join(VALID, f));
        const { cases } = require(path.join(REPO, "test", "dist", "corpus", "valid", f.replace(/\.ts$/, ".ref.js"))) as { cases: CorpusCase[] };
        assert.ok(cases.length > 0);
        for (const c of cases) {
          const buffers = c.setup();
          const device: Record<string, unknown> = {};
          for (const [k, v] of Object.entries(buffers)) device[k] = toDevice(v);
          for (const l of c.launches) {
            const k = kernel(artifact, l.kernel);
            k.launch(l.grid, l.block, { sharedMem: l.sharedMem })(...l.args.map((a) => device[a]));
          }
          const expected = c.reference(c.setup());
          for (const [k, want] of Object.entries(expected)) {
            const d = device[k] as ReturnType<typeof cuda.toDevice>;
            const got = d.copyToHost() as unknown;
            const gotData = (isTypedData(got) ? got : (got as HostNDArray).data) as HostTypedArray;
            const wantData = isTypedData(want) ? want : (want as HostNDArray).data;
            compare(`${c.name}: ${k}`, gotData, wantData, c.tolerance);
          }
        }
      });
    }
  });
}
