/** Runs the real `cudascript` command line in a child process (shared by the CLI convention tests). */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export const REPO = path.resolve(__dirname, "../../..");
export const CLI = path.join(REPO, "runtime/dist/cli/main.js");

export function cli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env, CUDASCRIPT_BACKEND: "", ...opts.env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: opts.cwd ?? REPO, encoding: "utf8", timeout: 120_000, env });
  return { code: r.status, out: r.stdout, err: r.stderr, all: r.stdout + r.stderr };
}

/** A temporary folder removed after the test. */
export function tempDir(t: { after(fn: () => void): void }, files: Record<string, string> = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-cli-conv-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

/** A kernel file with one CS1001 error on line 3, column 10 (1-based). */
export const STRING_IN_KERNEL = 'import { cuda, f32 } from "cudascript";\nexport const k = cuda.jit((a: Float32Array, x: f32) => {\n  a[0] = "x".length;\n});\nk.launch(1, 32)(new Float32Array(32), 2);\n';
export const CLEAN_KERNEL = 'import { cuda } from "cudascript";\nexport const k = cuda.jit((a: Float32Array) => {\n  const i = cuda.grid(1);\n  if (i < a.length) a[i] = 1;\n});\n';
