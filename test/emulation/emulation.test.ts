/**
 * Semantics of the generated CUDA C++ without a GPU: every valid corpus file's generated code is
 * compiled for the CPU with g++ against cuda_emulation.hpp, and every corpus case is run through it and
 * compared with the case's plain-TypeScript reference (exact for integer outputs, the case's
 * tolerance for float outputs).
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { generateCuda, KernelChecker, type GeneratedCuda } from "@cudascript/compiler";
import { isTypedData, type CorpusCase, type HostNDArray, type HostTypedArray } from "../corpus/case";
import { buildDriver, buildPrecompiledHeader, compareArrays, CORPUS_DIR, CORPUS_DIST_DIR, decodeOutput, encodeCase, findGxx, type BuildResult } from "./harness";

const files = fs
  .readdirSync(CORPUS_DIR)
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".ref.ts"))
  .sort();
const gxx = findGxx();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-emulation-"));
process.on("exit", () => fs.rmSync(tmp, { recursive: true, force: true }));

const checker = new KernelChecker();
const generated = new Map<string, GeneratedCuda | Error>();
for (const f of files) {
  try {
    const check = checker.checkFile(path.join(CORPUS_DIR, f));
    const errors = check.diagnostics.filter((d) => d.severity === "error");
    if (errors.length) throw new Error(`checker errors: ${errors.map((d) => `${d.span.line}: ${d.code} ${d.message}`).join("; ")}`);
    generated.set(f, generateCuda(check.module));
  } catch (e) {
    generated.set(f, e as Error);
  }
}

// All g++ builds start at once, two at a time (the machine has two cores); tests await their own.
const builds = new Map<string, Promise<BuildResult>>();
if (gxx) {
  buildPrecompiledHeader(gxx, tmp); // optional: only makes the builds faster
  const queue = files.filter((f) => !(generated.get(f) instanceof Error));
  let next = 0;
  const resolvers = new Map<string, (r: BuildResult) => void>();
  for (const f of queue) builds.set(f, new Promise((resolve) => resolvers.set(f, resolve)));
  const lane = async () => {
    while (next < queue.length) {
      const f = queue[next++]!;
      const gen = generated.get(f) as GeneratedCuda;
      resolvers.get(f)!(await buildDriver(gxx, tmp, path.basename(f, ".ts"), gen));
    }
  };
  void lane();
  void lane();
}

function skipWithoutGxx(t: TestContext): boolean {
  if (gxx) return false;
  const why = "g++ not found (set CXX or install g++ with C++20 <barrier> support, e.g. apt-get install g++)";
  if (process.env.CUDASCRIPT_REQUIRE_GXX === "1") throw new Error(`CUDASCRIPT_REQUIRE_GXX=1 but ${why}`);
  console.warn(`\n*** SKIPPING "${t.name}": ${why}\n`);
  t.skip(why);
  return true;
}

for (const f of files) {
  const name = path.basename(f, ".ts");
  test(`emulated ${f}`, async (t) => {
    const gen = generated.get(f)!;
    if (gen instanceof Error) throw gen;
    if (skipWithoutGxx(t)) return;
    const build = await builds.get(f)!;
    assert.ok(build.ok, `g++ failed on the generated CUDA C++ of ${f}:\n${build.log}`);
    const { cases } = require(path.join(CORPUS_DIST_DIR, `${name}.ref.js`)) as { cases: CorpusCase[] };
    assert.ok(cases.length > 0, `${name}.ref.ts has no cases`);
    for (const [i, c] of cases.entries()) {
      await t.test(c.name, () => {
        const values = c.setup();
        const encoded = encodeCase(c, values, gen.kernels);
        const input = path.join(tmp, `${name}.${i}.in`);
        const output = path.join(tmp, `${name}.${i}.out`);
        fs.writeFileSync(input, encoded.input);
        const run = spawnSync(build.binary, [input, output], { encoding: "utf8", timeout: 60_000 });
        assert.equal(run.status, 0, `emulated run failed (${run.signal ?? run.error?.message ?? `exit ${run.status}`}):\n${run.stderr}`);
        const actual = decodeOutput(fs.readFileSync(output), encoded.buffers, values);
        // The reference gets fresh inputs: the run above may not have touched `values`, but be safe.
        const expected = c.reference(c.setup());
        const problems: string[] = [];
        for (const [outName, exp] of Object.entries(expected)) {
          const got = actual.get(outName);
          if (!got) {
            problems.push(`${outName}: not a buffer of the case`);
            continue;
          }
          const e: HostTypedArray = isTypedData(exp) ? exp : (exp as HostNDArray).data;
          const p = compareArrays(outName, e, got, c.tolerance);
          if (p) problems.push(p);
        }
        assert.deepEqual(problems, [], problems.join("\n"));
      });
    }
  });
}
