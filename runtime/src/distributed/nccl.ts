/**
 * NCCL, found at run time as libcuda and NVRTC are (koffi, no build step): `cudascript doctor` reports
 * whether it loads and its version. CUDASCRIPT_NCCL names a library or its folder; otherwise the
 * loader's search path (LD_LIBRARY_PATH, ldconfig) is asked for libnccl.so.2, as NVIDIA's packages
 * and pip's nvidia-nccl-cu12 install it.
 *
 * The collectives themselves do not call NCCL yet: on every backend they run over the job's TCP
 * transport, staged through the host (docs/distributed.md#nccl).
 */
import * as fs from "node:fs";
import * as path from "node:path";

export type NcclProbe = { readonly ok: true; readonly path: string; readonly version: string } | { readonly ok: false; readonly reason: string };

export function ncclCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const explicit = env.CUDASCRIPT_NCCL;
  if (explicit) {
    try {
      if (fs.statSync(explicit).isDirectory()) return [path.join(explicit, "libnccl.so.2"), path.join(explicit, "libnccl.so")];
    } catch {
      // not a folder: a library name or path
    }
    return [explicit];
  }
  return ["libnccl.so.2", "libnccl.so"];
}

/** ncclGetVersion's code as text: 21903 → "2.19.3" (NCCL ≥ 2.9: major·10000 + minor·100 + patch). */
export function ncclVersionText(code: number): string {
  return code >= 10000 ? `${Math.floor(code / 10000)}.${Math.floor((code % 10000) / 100)}.${code % 100}` : `${Math.floor(code / 1000)}.${Math.floor((code % 1000) / 100)}.${code % 100}`;
}

export function probeNccl(env: NodeJS.ProcessEnv = process.env): NcclProbe {
  let koffi: typeof import("@cudascript/native-bindings").koffi;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    koffi = (require("@cudascript/native-bindings") as typeof import("@cudascript/native-bindings")).koffi;
  } catch (e) {
    return { ok: false, reason: `the native bindings do not load (${(e as Error).message.split("\n")[0]})` };
  }
  const failures: string[] = [];
  for (const candidate of ncclCandidates(env)) {
    try {
      const lib = koffi.load(candidate);
      const getVersion = lib.func("int ncclGetVersion(_Out_ int *version)");
      const out = [0];
      const result = getVersion(out) as number;
      return { ok: true, path: candidate, version: result === 0 ? ncclVersionText(out[0]!) : `unknown (ncclGetVersion returned ${result})` };
    } catch (e) {
      failures.push(`${candidate}: ${(e as Error).message.split("\n")[0]}`);
    }
  }
  return { ok: false, reason: failures.join("; ") };
}
