/**
 * The local GPU's architecture, for the default target: asks `nvidia-smi` (driver tool, not user
 * code) once, in the background, with a short timeout. No GPU, no driver or an old driver without the
 * `compute_cap` query: undefined, and the server stays on sm_80.
 */
import { execFile } from "node:child_process";

let detection: Promise<string | undefined> | undefined;

export function detectLocalGpuArch(): Promise<string | undefined> {
  if (process.env.CUDASCRIPT_GPU_ARCH) return Promise.resolve(process.env.CUDASCRIPT_GPU_ARCH);
  detection ??= new Promise((resolve) => {
    try {
      execFile("nvidia-smi", ["--query-gpu=compute_cap", "--format=csv,noheader"], { timeout: 3000, windowsHide: true }, (err, stdout) => {
        if (err) return resolve(undefined);
        const m = /^\s*(\d+)\.(\d)\s*$/m.exec(String(stdout));
        resolve(m ? `sm_${m[1]}${m[2]}` : undefined);
      });
    } catch {
      resolve(undefined);
    }
  });
  return detection;
}
