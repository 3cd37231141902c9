/**
 * NCCL, found at run time as libcuda and NVRTC are (koffi, no build step): `cudascript doctor` reports
 * whether it loads and its version. CUDASCRIPT_NCCL names a library or its folder; otherwise the
 * loader's search path (LD_LIBRARY_PATH, ldconfig) is asked for libnccl.so.2, as NVIDIA's packages
 * and pip's nvidia-nccl-cu12 install it.
 *
 * On the GPU backend `dist` runs its collectives through NCCL when it loads (nccl-comm.ts); otherwise,
 * and on the simulator, over the job's TCP transport, staged through the host (docs/distributed.md#nccl).
 */
import * as fs from "node:fs";
import { CudaScriptError } from "../errors";
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

/** The dtypes NCCL has, in the order of its ncclDataType_t (i16/u16 have none: those go over the TCP transport). */
const NCCL_TYPE_ORDER = ["i8", "u8", "i32", "u32", "i64", "u64", "f16", "f32", "f64"] as const;
/** NCCL's ncclDataType_t of each dtype it has. */
export const NCCL_DTYPES: Readonly<Record<string, number>> = Object.freeze(Object.fromEntries(NCCL_TYPE_ORDER.map((d, code) => [d, code])));
/** NCCL's ncclRedOp_t. */
export const NCCL_OPS: Readonly<Record<string, number>> = { sum: 0, prod: 1, max: 2, min: 3 };

type Fn = (...args: unknown[]) => unknown;

/** The NCCL functions `dist` calls, bound with koffi (device pointers and streams as 64-bit integers, the default stream 0). */
export class NcclLibrary {
  readonly getUniqueId: Fn;
  readonly commInitRank: Fn;
  readonly commDestroy: Fn;
  readonly allReduce: Fn;
  readonly broadcast: Fn;
  readonly allGather: Fn;
  readonly reduceScatter: Fn;
  private readonly errorString: Fn;

  constructor(readonly path: string) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { koffi } = require("@cudascript/native-bindings") as typeof import("@cudascript/native-bindings");
    const lib = koffi.load(path);
    const id = koffi.struct("cudascript_ncclUniqueId", { internal: koffi.array("uint8_t", 128) });
    koffi.pointer("cudascript_ncclComm_t", koffi.opaque("cudascript_ncclComm"));
    this.getUniqueId = lib.func("int ncclGetUniqueId(_Out_ uint8_t *id)") as Fn;
    this.commInitRank = lib.func("ncclCommInitRank", "int", [koffi.out(koffi.pointer("cudascript_ncclComm_t")), "int", id, "int"]) as Fn;
    this.commDestroy = lib.func("int ncclCommDestroy(cudascript_ncclComm_t comm)") as Fn;
    this.allReduce = lib.func("int ncclAllReduce(uint64_t send, uint64_t recv, size_t count, int dtype, int op, cudascript_ncclComm_t comm, uint64_t stream)") as Fn;
    this.broadcast = lib.func("int ncclBroadcast(uint64_t send, uint64_t recv, size_t count, int dtype, int root, cudascript_ncclComm_t comm, uint64_t stream)") as Fn;
    this.allGather = lib.func("int ncclAllGather(uint64_t send, uint64_t recv, size_t count, int dtype, cudascript_ncclComm_t comm, uint64_t stream)") as Fn;
    this.reduceScatter = lib.func("int ncclReduceScatter(uint64_t send, uint64_t recv, size_t count, int dtype, int op, cudascript_ncclComm_t comm, uint64_t stream)") as Fn;
    this.errorString = lib.func("const char *ncclGetErrorString(int result)") as Fn;
  }

  /** Throws CSR078 with NCCL's own text unless `result` is ncclSuccess. */
  check(what: string, result: unknown): void {
    if (result === 0) return;
    throw new CudaScriptError("CSR078", `${what} failed with NCCL error ${String(result)}: ${String(this.errorString(result))}`);
  }
}
