/**
 * CPU replay of the examples that demand bit-exact equality with plain TypeScript (saxpy, matmul,
 * mandelbrot): their kernels' generated CUDA C++ is compiled with g++ against cuda_emulation.hpp with
 * the contraction the GPU build gets (none: NVRTC runs with --fmad=false), run on the example's own
 * inputs and compared exactly with the example's own reference. A second build with contraction forced
 * on (-ffp-contract=fast -mfma, what NVRTC's default -fmad=true does on a GPU) shows what the default
 * protects against: saxpy then differs in the last bit on about a third of its elements.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it, type TestContext } from "node:test";
import { generateCuda, KernelChecker, type GeneratedCuda } from "@cudascript/compiler";
import { nd, type CorpusCase, type HostTypedArray } from "../corpus/case";
import { compareArrays, contractionFlags, cpuHasFma, emulateCase, findGxx } from "./harness";

const EXAMPLES = path.resolve(__dirname, "../../../examples");
const gxx = findGxx();
const checker = new KernelChecker();
const f = Math.fround;

function generated(file: string): GeneratedCuda {
  const check = checker.checkFile(path.join(EXAMPLES, file));
  assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  return generateCuda(check.module);
}

// The examples' inputs and references, restated (the example files are programs that run on import).
const saxpyN = 1 << 20;
const saxpy: CorpusCase = {
  name: "examples/saxpy.ts: 1M elements",
  setup: () => {
    const x = new Float32Array(saxpyN), y = new Float32Array(saxpyN);
    for (let i = 0; i < saxpyN; i++) {
      x[i] = Math.sin(i * 0.001);
      y[i] = Math.cos(i * 0.002);
    }
    return { a: 2.5, x, y, out: new Float32Array(saxpyN) };
  },
  launches: [{ kernel: "saxpy", grid: saxpyN / 256, block: 256, args: ["a", "x", "y", "out"] }],
  reference: (v) => {
    const x = v.x as Float32Array, y = v.y as Float32Array;
    return { out: x.map((xi, i) => f(f(f(2.5) * xi) + y[i]!)) };
  },
};

const [M, K, N] = [300, 200, 250];
const matmul: CorpusCase = {
  name: "examples/matmul.ts: 300×200 · 200×250, 16×16 tiles",
  setup: () => ({
    A: nd(new Float32Array(M * K).map((_, i) => ((i * 37) % 101) / 101 - 0.5), [M, K]),
    B: nd(new Float32Array(K * N).map((_, i) => ((i * 53) % 97) / 97 - 0.5), [K, N]),
    C: nd(new Float32Array(M * N), [M, N]),
  }),
  launches: [{ kernel: "matmulTiled", grid: [Math.ceil(N / 16), Math.ceil(M / 16)], block: [16, 16], args: ["A", "B", "C"] }],
  reference: (v) => {
    const a = (v.A as { data: Float32Array }).data, b = (v.B as { data: Float32Array }).data;
    const c = new Float32Array(M * N);
    for (let r = 0; r < M; r++)
      for (let col = 0; col < N; col++) {
        let acc = 0;
        for (let k = 0; k < K; k++) acc = f(acc + f(a[r * K + k]! * b[k * N + col]!));
        c[r * N + col] = acc;
      }
    return { C: nd(c, [M, N]) };
  },
};

const [W, H, MAX_ITER] = [640, 400, 200];
const mandelbrot: CorpusCase = {
  name: "examples/mandelbrot.ts: 640×400",
  setup: () => ({ x0: -2.2, y0: -1.25, step: 3.2 / W, image: nd(new Int32Array(W * H), [H, W]) }),
  launches: [{ kernel: "mandelbrot", grid: [W / 16, H / 16], block: [16, 16], args: ["x0", "y0", "step", "image"] }],
  reference: () => {
    const image = new Int32Array(W * H);
    for (let row = 0; row < H; row++)
      for (let col = 0; col < W; col++) {
        const cr = f(f(-2.2) + f(f(col) * f(3.2 / W)));
        const ci = f(f(-1.25) + f(f(row) * f(3.2 / W)));
        let zr = 0, zi = 0, n = 0;
        while (n < MAX_ITER && f(f(zr * zr) + f(zi * zi)) <= 4) {
          const t = f(f(f(zr * zr) - f(zi * zi)) + cr);
          zi = f(f(f(2 * zr) * zi) + ci);
          zr = t;
          n++;
        }
        image[row * W + col] = n;
      }
    return { image: nd(image, [H, W]) };
  },
};

/** Builds `file`'s kernels with the given contraction, runs `c`, returns the comparison problems with the reference. */
async function replay(t: TestContext, file: string, c: CorpusCase, contraction?: "off" | "fast"): Promise<string[] | undefined> {
  if (!gxx) {
    t.skip("g++ not found");
    return undefined;
  }
  const gen = generated(file);
  const name = `${path.basename(file, ".ts")}_${contraction ?? "default"}`;
  const { outputs: actual } = await emulateCase(gxx, name, gen, c, c.setup(), contraction ? { contraction } : {});
  return Object.entries(c.reference(c.setup())).flatMap(([outName, exp]) => {
    const e = (ArrayBuffer.isView(exp) ? exp : (exp as { data: HostTypedArray }).data) as HostTypedArray;
    return compareArrays(outName, e, actual.get(outName)!) ?? [];
  });
}

describe("examples replayed on the CPU as a GPU runs them (no FMA contraction unless a kernel opts in)", () => {
  it("the examples' kernels get -ffp-contract=off, as NVRTC gets --fmad=false", () => {
    for (const file of ["saxpy.ts", "matmul.ts", "mandelbrot.ts"]) assert.deepEqual(contractionFlags(generated(file)), ["-ffp-contract=off"], file);
  });
  for (const [file, c] of [["saxpy.ts", saxpy], ["matmul.ts", matmul], ["mandelbrot.ts", mandelbrot]] as const) {
    it(`${file} is bit-exact with its plain-TypeScript reference`, async (t) => {
      const problems = await replay(t, file, c);
      if (problems) assert.deepEqual(problems, []);
    });
  }
  it("with contraction forced on (what -fmad=true did), saxpy differs from its reference in the last bit", async (t) => {
    if (!cpuHasFma()) return t.skip("this CPU has no FMA instructions");
    const problems = await replay(t, "saxpy.ts", saxpy, "fast");
    if (!problems) return;
    assert.equal(problems.length, 1);
    t.diagnostic(problems[0]!.slice(0, 120));
    const differing = Number(/out: (\d+) of/.exec(problems[0]!)?.[1]);
    assert.ok(differing > saxpyN / 10, problems[0]);
  });
});
