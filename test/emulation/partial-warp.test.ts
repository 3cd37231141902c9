/**
 * Warp operations in a warp with fewer than 32 threads (a 10-thread block), on the simulator and in the
 * g++ emulation: only the lanes that exist take part (PTX: "the non-exited threads in membermask"), so
 * the full mask gives 0x3ff from matchAllSync and ballotSync. A shuffle whose source lane does not exist
 * reads this lane's own value on both — CUDA leaves that value undefined (docs/simulator.md), so the
 * corpus, which also runs on GPUs, does not rely on it; this test holds the two emulations to one rule.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import type { CorpusCase } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { compareArrays, emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda } from "cudascript";
export const partialWarp = cuda.jit((x: Int32Array, out: Uint32Array) => {
  const t = cuda.threadIdx.x;
  const v = t < x.length ? x[t] : 0;
  const down = cuda.shflDownSync(0xffffffff, v, 1);
  const far = cuda.shflSync(0xffffffff, v, 20);
  const xor = cuda.shflXorSync(0xffffffff, v, 8);
  const ballot = cuda.ballotSync(0xffffffff, v > 0);
  const all = cuda.matchAllSync(0xffffffff, 5);
  if (t < out.length / 5) {
    out[5 * t] = down;
    out[5 * t + 1] = far;
    out[5 * t + 2] = xor;
    out[5 * t + 3] = ballot;
    out[5 * t + 4] = all;
  }
});
`;

const file = path.join(__dirname, "..", "..", "emulation", `__partial_warp_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);

const N = 10;
const values = Int32Array.from({ length: N }, (_, t) => (t % 3 === 0 ? -t : t + 1));
const partial: CorpusCase = {
  name: "partialWarp",
  setup: () => ({ x: values.slice(), out: new Uint32Array(5 * N) }),
  launches: [{ kernel: "partialWarp", grid: 1, block: N, args: ["x", "out"] }],
  reference: () => {
    const out = new Uint32Array(5 * N);
    const own = (t: number, src: number) => (src < N ? values[src]! : values[t]!) >>> 0;
    let ballot = 0;
    for (let t = 0; t < N; t++) if (values[t]! > 0) ballot |= 1 << t;
    for (let t = 0; t < N; t++) out.set([own(t, t + 1), own(t, 20), own(t, t ^ 8), ballot >>> 0, 0x3ff], 5 * t);
    return { out };
  },
};

describe("warp operations in a partial warp (10 threads): the simulator and the g++ emulation agree", () => {
  it("the kernel checks", () => assert.deepEqual(check.diagnostics.map((d) => `${d.code} ${d.message}`), []));

  it("g++ emulation: only the lanes that exist take part; a missing source lane gives the lane's own value", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const { outputs } = await emulateCase(gxx, "partial-warp", generateCuda(check.module), partial, partial.setup());
    assert.equal(compareArrays("out", partial.reference({}).out as Uint32Array, outputs.get("out")!), undefined);
  });

  it("simulator: the same", () => {
    const out = new Uint32Array(5 * N);
    kernel(makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes }), "partialWarp").launch(1, N)(values.slice(), out);
    assert.equal(compareArrays("out", partial.reference({}).out as Uint32Array, out), undefined);
  });
});
