/** The workspace the real-VS-Code tests open: fixtures, a corpus file, the examples, this repo's node_modules. */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = join(dirname(fileURLToPath(import.meta.url)), "..");
const root = join(here, "..", "..");

export function makeWorkspace(ws) {
  mkdirSync(ws, { recursive: true });
  cpSync(join(here, "workspace"), ws, { recursive: true });
  mkdirSync(join(ws, "corpus"));
  cpSync(join(root, "test/corpus/invalid/cs2002-float-param-index.ts"), join(ws, "corpus/cs2002-float-param-index.ts"));
  const examples = join(root, "examples");
  if (existsSync(examples) && readdirSync(examples).some((f) => f.endsWith(".ts"))) cpSync(examples, join(ws, "examples"), { recursive: true });
  // `cudascript` (and its dependencies) resolve as in a user's project
  symlinkSync(join(root, "node_modules"), join(ws, "node_modules"), "dir");
  writeFileSync(join(ws, "tsconfig.json"), JSON.stringify({ compilerOptions: { target: "ES2022", module: "commonjs", strict: true, skipLibCheck: true } }, null, 2));
  // a program outside any project (no node_modules up the tree): runs use the CLI bundled in the .vsix
  const standalone = join(dirname(ws), "standalone");
  mkdirSync(standalone, { recursive: true });
  cpSync(join(here, "workspace", "kernels.ts"), join(standalone, "kernels.ts"));
  writeFileSync(
    join(standalone, "standalone.ts"),
    'import { saxpy } from "./kernels";\nconst n = 4096;\nconst x = new Float32Array(n).fill(1), y = new Float32Array(n).fill(2), out = new Float32Array(n);\nsaxpy.launch(n / 256, 256)(3, x, y, out);\nconsole.log(`standalone: out[0] = ${out[0]}, out[n-1] = ${out[n - 1]}`);\n',
  );
  const r = spawnSync(process.execPath, [join(here, "lib/make-results.mjs"), join(ws, "fixture-results.jsonl"), join(ws, "kernels.ts")], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`make-results failed:\n${r.stderr}`);
  return ws;
}

