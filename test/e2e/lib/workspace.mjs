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
  const r = spawnSync(process.execPath, [join(here, "lib/make-results.mjs"), join(ws, "fixture-results.jsonl"), join(ws, "kernels.ts")], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`make-results failed:\n${r.stderr}`);
  return ws;
}

