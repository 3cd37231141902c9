/**
 * console.log in kernels prints the same text on the simulator and in the generated C++ (its printf,
 * run by the g++ emulation): booleans as JavaScript prints them, numbers as printf's %d / %u / %g (the
 * documented difference from JavaScript, docs/kernel-language.md).
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { compileModuleSync, generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";
import { configureSimulator } from "cudascript";
import type { CorpusCase } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { emulateCase, findGxx } from "./harness";

after(() => configureSimulator({ print: (t) => process.stdout.write(t) }));

const SOURCE = `import { cuda, u32 } from "cudascript";
export const show = cuda.jit((x: Float32Array, d: Float64Array, u: Uint32Array) => {
  if (cuda.grid(1) === 0) {
    const flag = x[0] > 0;
    console.log(true, false, flag, x[0] < 0);
    console.log(\`flag=\${flag} neg=\${x[0] < 0}\`);
    console.log(u[0], -7, x[0], x[1], d[0], d[1], d[2], d[3]);
  }
});
`;

const file = path.join(__dirname, "..", "..", "emulation", `__print_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);

const setup = () => ({ x: Float32Array.of(0.5, -0), d: Float64Array.of(NaN, Infinity, -Infinity, 1234567), u: Uint32Array.of(4000000000) });
const c: CorpusCase = { name: "show", setup, launches: [{ kernel: "show", grid: 1, block: 32, args: ["x", "d", "u"] }], reference: () => ({}) };

// JavaScript's own console.log text for the booleans; numbers follow printf's %u/%d/%g.
const EXPECTED = ["true false true false", "flag=true neg=false", "4000000000 -7 0.5 -0 nan inf -inf 1.23457e+06", ""].join("\n");

describe("console.log in kernels", () => {
  it("the simulator prints booleans as true/false and numbers as printf does", () => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error"), []);
    let text = "";
    configureSimulator({ print: (t) => (text += t) });
    const v = setup();
    kernel(makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes }), "show").launch(1, 32)(v.x, v.d, v.u);
    assert.equal(text, EXPECTED);
  });

  it("the generated C++ (printf, g++ emulation) prints the same text", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const gen = generateCuda(check.module);
    const { stdout } = await emulateCase(gxx, "print", gen, c, c.setup());
    assert.equal(stdout, EXPECTED);
  });

  it("NVRTC accepts the generated printf (%s with \"true\"/\"false\")", (t) => {
    if (!nvrtcOrSkip(t)) return;
    const r = compileModuleSync(check.module, { cache: false });
    assert.ok(r.ok, r.diagnostics.map((d) => d.message).join("\n"));
    assert.match(r.cuda.source, /printf\("%s %s %s %s\\n", \(true\) \? "true" : "false"/);
  });
});
