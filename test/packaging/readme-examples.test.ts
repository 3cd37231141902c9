/**
 * The examples in the packages' READMEs (what npm shows users first) run and print what they say:
 * the repository's and cudascript's saxpy through `cudascript run`, the compiler's programmatic API and the bindings'
 * NVRTC/driver probe through plain `node`, each in a fresh folder outside the repository, resolving
 * the packages by name as an installed project would (NODE_PATH at the workspace's node_modules).
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { REPO } from "../simulator/helpers";
import { nvrtcOrSkip } from "../support/toolchain-or-skip";

/** The first fenced code block of `language` in a package's README. */
function example(pkg: string, language: string): string {
  const readme = fs.readFileSync(path.join(REPO, pkg, "README.md"), "utf8");
  const block = new RegExp("```" + language + "\\n([\\s\\S]*?)```").exec(readme)?.[1];
  assert.ok(block, `${pkg}/README.md has no \`\`\`${language} example`);
  return block;
}

function runIn(t: TestContext, file: string, text: string, args: (file: string) => string[]): { status: number | null; out: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-readme-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, file), text);
  const env = { ...process.env, NODE_PATH: path.join(REPO, "node_modules"), CUDASCRIPT_BACKEND: "simulator", NO_COLOR: "1" };
  const r = spawnSync(process.execPath, args(file), { cwd: dir, env, encoding: "utf8", timeout: 120_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

for (const [readme, pkg] of [["The repository's README", "."], ["cudascript's README", "runtime"]] as const) {
  test(`${readme} saxpy runs with \`cudascript run\` and prints the values its comment says`, (t) => {
    const code = example(pkg, "ts");
    const promised = /console\.log\(.*\); \/\/ (.+)$/m.exec(code)?.[1];
    assert.ok(promised, "the example's console.log says what it prints");
    const r = runIn(t, "saxpy.ts", code, (file) => [path.join(REPO, "runtime", "bin", "cudascript.js"), "run", file]);
    assert.equal(r.status, 0, r.out);
    assert.ok(r.out.split("\n").includes(promised), `expected a line "${promised}" in:\n${r.out}`);
  });
}

test("@cudascript/compiler's README example checks, generates CUDA C++ and compiles the README's saxpy", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const kernel = example("runtime", "ts");
  const script = example("compiler", "js");
  // The example checks ./saxpy.ts: the runtime README's kernel, then the same with a mistake.
  const withKernel = (text: string) => (file: string) => ["-e", `require("fs").writeFileSync("saxpy.ts", ${JSON.stringify(text)}); require("./${file}")`];
  const good = runIn(t, "example.js", script, withKernel(kernel));
  assert.equal(good.status, 0, good.out);
  assert.match(good.out, /extern "C" __global__ void saxpy\(/);
  assert.match(good.out, /\d+ bytes of PTX; \{[^}]*registers: \d+/);
  const bad = kernel.replace("out[i] = a * x[i] + y[i];", 'out[i] = "oops";');
  const rejected = runIn(t, "example.js", script, withKernel(bad));
  assert.equal(rejected.status, 1, rejected.out);
  assert.match(rejected.out, /saxpy\.ts:\d+:\d+ - error CS\d{4}: /);
});

test("@cudascript/native-bindings' README example loads NVRTC, compiles, and reports the missing driver", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const r = runIn(t, "example.js", example("native-bindings", "js"), (file) => [file]);
  assert.equal(r.status, 0, r.out);
  assert.match(r.out, /^NVRTC \d+\.\d+ from \S+/m);
  assert.match(r.out, /^\d+ bytes of PTX$/m);
  // No GPU here: the driver probe prints its coded reason (with a GPU it would list the devices).
  assert.match(r.out, /^(CSD00\d: |\[)/m);
});
