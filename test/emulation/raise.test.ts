/**
 * A thread that throws, in the g++ emulation of the generated CUDA C++ (issue 31 item 2): it claims the
 * error record (compiler/src/cuda/raise.ts) and ends (cs_raise_exit: PTX exit on a GPU, the end of the
 * thread's body here), so the block's barrier no longer waits for it and the other threads finish; the
 * record holds the site, block, thread and the message's values, which the GPU backend decodes into the
 * simulator's CSR085. The record is printed by a static destructor appended to the program.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { generateCuda, KernelChecker, makeArtifact, raiseSites } from "@cudascript/compiler";
import { CudaScriptError } from "cudascript";
import { raisedError } from "cudascript/dist/gpu/kernel-errors";
import type { CorpusCase } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda, f64, i32 } from "cudascript";
export const raiseBeforeBarrier = cuda.jit((bad: i32, scale: f64, out: Int32Array) => {
  const t = cuda.threadIdx.x;
  if (cuda.blockIdx.x === 1 && t === bad) throw new RangeError(\`thread \${t} of \${cuda.blockDim.x}: \${scale * t} \${t > 0}\`);
  cuda.syncthreads();
  out[cuda.blockIdx.x * cuda.blockDim.x + t] = t;
});
`;

const file = path.join(__dirname, "..", "..", "emulation", `__raise_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const N = 64;
const run: CorpusCase = {
  name: "raiseBeforeBarrier",
  setup: () => ({ bad: 5, scale: 0.5, out: new Int32Array(2 * N) }),
  launches: [{ kernel: "raiseBeforeBarrier", grid: 2, block: N, args: ["bad", "scale", "out"] }],
  reference: () => ({}),
};
const PRINT_RECORD = `
#include <cstdio>
struct cs_print_record_at_exit {
  ~cs_print_record_at_exit() {
    printf("record");
    for (int i = 0; i < 16; i++) printf(" %llu", cs_error_record[i]);
    printf("\\n");
  }
} cs_print_record_instance;
`;

describe("a thread that throws, in the g++ emulation of the generated CUDA C++", () => {
  it("the kernel checks: no error; CS5001 warns of the barrier after a thread-dependent throw, as after a thread-dependent return", () => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code} ${d.message}`), []);
    assert.ok(check.diagnostics.some((d) => d.code === "CS5001"));
  });

  it("the thread ends, the others pass the barrier; the record decodes to the simulator's CSR085", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const gen = generateCuda(check.module);
    const { outputs, stdout } = await emulateCase(gxx, "raise", { ...gen, source: gen.source + PRINT_RECORD }, run, run.setup());
    const out = outputs.get("out") as Int32Array;
    for (let i = 0; i < 2 * N; i++) assert.equal(out[i], i === N + 5 ? 0 : i % N, `out[${i}]`);
    const words = /record((?: \d+){16})/.exec(stdout);
    assert.ok(words, stdout);
    const record = BigUint64Array.from(words[1]!.trim().split(" ").map(BigInt));
    assert.equal(record[0], 2n, "written");
    const emulated = raisedError(record, raiseSites(check.module), ["raiseBeforeBarrier"]);

    let simulated: unknown;
    try {
      kernel(makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes }), "raiseBeforeBarrier").launch(2, N)(5, 0.5, new Int32Array(2 * N));
    } catch (e) {
      simulated = e;
    }
    assert.ok(simulated instanceof CudaScriptError);
    assert.equal(emulated.message, simulated.message);
    assert.deepEqual(emulated.details, simulated.details);
    assert.match(emulated.message, /block \(1, 0, 0\), thread \(5, 0, 0\): RangeError: thread 5 of 64: 2\.5 true$/);
  });
});
