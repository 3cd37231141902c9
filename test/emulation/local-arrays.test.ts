/**
 * Local arrays (cuda.local.array) start zeroed on every backend, as a new typed array does in plain
 * TypeScript: the generated C++ zero-initialises them (`T a[N] = {};`), the simulator allocates zeroed
 * storage. A local-array histogram that counts without zeroing first is therefore correct everywhere
 * (before, the GPU's C array held stale stack contents: in the g++ emulation, the previous block's counts).
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import type { CorpusCase, HostTypedArray } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { compareArrays, emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda, i32 } from "cudascript";
export const localHistogram = cuda.jit((x: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  const h = cuda.local.array(4, i32);
  if (i < x.length) h[x[i] & 3] += 1;
  for (let k = 0; k < 4; k++) out[i * 4 + k] = h[k];
});
`;

const file = path.join(__dirname, "..", "..", "emulation", `__local_arrays_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const N = 8 * 32;
const c: CorpusCase = {
  name: "localHistogram",
  setup: () => ({ x: Int32Array.from({ length: N }, (_, i) => (i * 7) % 5), out: new Int32Array(N * 4) }),
  launches: [{ kernel: "localHistogram", grid: 8, block: 32, args: ["x", "out"] }],
  reference: (v) => {
    const out = new Int32Array(N * 4);
    (v.x as Int32Array).forEach((x, i) => (out[i * 4 + (x & 3)] = 1));
    return { out };
  },
};

describe("local arrays start zeroed on every backend", () => {
  it("the generated C++ zero-initialises local arrays (not shared ones)", () => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error"), []);
    assert.match(generateCuda(check.module).source, /int h_?\d*\[4\] = \{\};/);
  });

  it("a local histogram that never zeroes its counts is right in the g++ emulation of the GPU code", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const gen = generateCuda(check.module);
    const { outputs } = await emulateCase(gxx, "local", gen, c, c.setup());
    assert.equal(compareArrays("out", c.reference(c.setup()).out as Int32Array, outputs.get("out")!), undefined);
  });

  it("and on the simulator", () => {
    const v = c.setup();
    kernel(makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes }), "localHistogram").launch(8, 32)(v.x, v.out);
    assert.equal(compareArrays("out", c.reference(c.setup()).out as Int32Array, v.out as Int32Array), undefined);
  });
});
