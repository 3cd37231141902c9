/**
 * Records in shared and local arrays and as device-function parameters (docs/kernel-language.md#records),
 * on the corpus kernels test/corpus/valid/record_shared_local.ts: the simulator matches the plain
 * TypeScript reference, the g++ emulation of the generated C++ leaves exactly the simulator's values,
 * and the C++ compiles with NVRTC (compute_80) and assembles with ptxas for sm_80. The shared-memory
 * sanitizer names a race on a record's field as the kernel wrote it (`sh[3].x`, CSR021).
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { configureSimulator, cuda, CudaScriptError, f32 } from "cudascript";
import type { CorpusCase, HostTypedArray, HostValue } from "../corpus/case";
import { compileSource, kernel } from "../simulator/helpers";
import { assertCompilesForSm80 } from "../support/toolchain-or-skip";
import { compareArrays, CORPUS_DIR, CORPUS_DIST_DIR, emulateCase, findGxx } from "./harness";

const NAME = "record_shared_local";
const checker = new KernelChecker();
const check = checker.checkFile(path.join(CORPUS_DIR, `${NAME}.ts`));
const art = () => makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { cases } = require(path.join(CORPUS_DIST_DIR, `${NAME}.ref.js`)) as { cases: CorpusCase[] };

/** Runs a case's launches on the simulator; the final contents of every buffer. */
function simulate(c: CorpusCase): Map<string, HostTypedArray> {
  const values = c.setup();
  const device: Record<string, { copyToHost(): unknown }> = {};
  for (const [k, v] of Object.entries(values)) device[k] = cuda.toDevice(v as Float32Array) as { copyToHost(): unknown };
  for (const l of c.launches) kernel(art(), l.kernel).launch(typeof l.grid === "number" ? l.grid : [...l.grid], typeof l.block === "number" ? l.block : [...l.block])(...l.args.map((a) => device[a]));
  return new Map(Object.entries(device).map(([k, d]) => [k, d.copyToHost() as HostTypedArray]));
}

describe("records in shared/local arrays and device-function parameters", () => {
  it("checks clean", () => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.span.line}: ${d.code} ${d.message}`), []);
  });

  for (const c of cases) {
    it(`simulator matches plain TypeScript: ${c.name}`, () => {
      const got = simulate(c);
      for (const [k, want] of Object.entries(c.reference(c.setup()))) assert.equal(compareArrays(k, want as HostTypedArray, got.get(k)!, c.tolerance), undefined);
    });
  }

  it("the g++ emulation of the generated C++ gives the simulator's values exactly", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const gen = generateCuda(check.module);
    for (const c of cases) {
      const values = c.setup() as Record<string, HostValue>;
      const { outputs } = await emulateCase(gxx, NAME, gen, c, values);
      const sim = simulate(c);
      for (const k of Object.keys(c.reference(c.setup()))) assert.equal(compareArrays(`${c.name}: ${k}`, sim.get(k)!, outputs.get(k)!), undefined);
    }
  });

  it("the generated C++ compiles with NVRTC (compute_80) and assembles with ptxas (sm_80)", (t) => {
    const source = generateCuda(check.module, { lineDirectives: false }).source;
    // One array per field: no struct in shared or local memory.
    assert.match(source, /__shared__ float sh_x\[64\];/);
    assertCompilesForSm80(t, source, "record_storage.cu");
  });
});

describe("the shared-memory sanitizer on records", () => {
  after(() => configureSimulator({ sanitize: false, workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));
  const racy = compileSource(`import { cuda, f32, i32 } from "cudascript";
interface Body { x: f32; v: f32; id: i32 }
const Body = cuda.record({ x: f32, v: f32, id: i32 });
export const racy = cuda.jit((out: Float32Array, sync: i32) => {
  const sh = cuda.shared.array(32, Body);
  const t = cuda.threadIdx.x;
  sh[t].x = t;
  sh[t].id = t;
  if (sync === 1) cuda.syncthreads();
  out[t] = sh[(t + 1) % 32].x;
});
`);

  it("a read of a neighbour's field before the barrier is CSR021 naming the record's field", () => {
    configureSimulator({ sanitize: true, workers: 1, inProcessThreshold: 1 << 30, uninitializedShared: "error" });
    const out = cuda.deviceArray(32, f32);
    kernel(racy, "racy").launch(1, 32)(out, 1);
    assert.equal((out.copyToHost() as Float32Array)[0], 1);
    assert.throws(
      () => kernel(racy, "racy").launch(1, 32)(out, 0),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR021" && /shared-memory race on 'sh\[\d+\]\.x'/.test(e.message),
    );
  });
});
