// Runs a standalone ptxas, when one is installed, to check PTX offline (tests, diagnostics).
// Optional: nothing in the runtime path needs it.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

export interface PtxasRun {
  ok: boolean;
  /** ptxas's exit status (null if it could not run or timed out). */
  status: number | null;
  /** Diagnostics and, with -v, the resource report. */
  stderr: string;
  stdout: string;
}

/** CUDASCRIPT_PTXAS, then $CUDA_PATH/bin, $CUDA_HOME/bin, /usr/local/cuda/bin, then PATH. */
export function findPtxas(env: Readonly<Record<string, string | undefined>> = process.env): string | undefined {
  const exe = process.platform === "win32" ? "ptxas.exe" : "ptxas";
  const candidates = [
    env.CUDASCRIPT_PTXAS,
    env.CUDA_PATH && path.join(env.CUDA_PATH, "bin", exe),
    env.CUDA_HOME && path.join(env.CUDA_HOME, "bin", exe),
    path.join("/usr/local/cuda/bin", exe),
    ...(env.PATH ?? "").split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, exe)),
  ];
  return candidates.find((p): p is string => !!p && isExecutableFile(p));
}

/** Assembles `ptx` for `arch` (e.g. "sm_80") with extra ptxas arguments such as ["-v"]. */
export function assemblePtx(ptxas: string, ptx: string, arch: string, extraArgs: string[] = []): PtxasRun {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-ptxas-"));
  try {
    const input = path.join(dir, "input.ptx");
    fs.writeFileSync(input, ptx);
    const r = spawnSync(ptxas, [`-arch=${arch}`, ...extraArgs, input, "-o", path.join(dir, "out.cubin")], {
      encoding: "utf8",
      timeout: 60_000,
    });
    const stderr = r.error ? `${r.error.message}\n${r.stderr ?? ""}` : r.stderr;
    return { ok: !r.error && r.status === 0, status: r.status, stderr, stdout: r.stdout ?? "" };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function isExecutableFile(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
