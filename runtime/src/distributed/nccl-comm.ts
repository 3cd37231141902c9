/**
 * The job's NCCL communicator on the GPU backend: made at the first collective when every rank has
 * NCCL (they agree over the TCP transport first, so that one rank without it cannot leave the others
 * waiting in NCCL), from the unique id rank 0 makes and broadcasts through the rendezvous — NCCL's
 * user guide's recipe (ncclGetUniqueId on one rank, any channel to the others, ncclCommInitRank).
 * The collectives then run on the arrays' device memory, on the default stream, and `dist` waits for
 * them (cuda.synchronize) before it resolves.
 */
import { CudaScriptError } from "../errors";
import type { DeviceNDArray } from "../host/arrays";
import { currentBackend } from "../host/device";
import type { DistPlacement } from "./env";
import { NCCL_DTYPES, NCCL_OPS, NcclLibrary, probeNccl } from "./nccl";
import type { Transport } from "./transport";

export class NcclComm {
  private constructor(
    private readonly lib: NcclLibrary,
    private readonly comm: unknown,
  ) {}

  /** The communicator, or undefined when some rank has no NCCL (or CUDASCRIPT_DIST_NCCL=0): the TCP transport then. */
  static async create(placement: DistPlacement, transport: Transport): Promise<NcclComm | undefined> {
    const probe = process.env.CUDASCRIPT_DIST_NCCL === "0" ? undefined : probeNccl();
    const mine = new Uint8Array([probe?.ok ? 1 : 0]);
    const all = await transport.collective({ op: "allGather", dtype: "u8", count: 1, resultCount: placement.size }, mine);
    if (!probe?.ok || all.some((ok) => ok !== 1)) return undefined;
    const lib = new NcclLibrary(probe.path);
    let id: Uint8Array = new Uint8Array(0);
    if (placement.rank === 0) {
      const out = Buffer.alloc(128);
      lib.check("ncclGetUniqueId", lib.getUniqueId(out));
      id = new Uint8Array(out);
    }
    id = await transport.collective({ op: "broadcast", dtype: "u8", count: 128, resultCount: 128, root: 0 }, id);
    const handle: unknown[] = [null];
    lib.check(`ncclCommInitRank (rank ${placement.rank} of ${placement.size})`, lib.commInitRank(handle, placement.size, { internal: Array.from(id) }, placement.rank));
    return new NcclComm(lib, handle[0]);
  }

  /** Whether NCCL moves this dtype (it has no 16-bit integers). */
  static moves(dtype: string): boolean {
    return NCCL_DTYPES[dtype] !== undefined;
  }

  private static pointer(a: DeviceNDArray): bigint {
    const buffer = a.buffer as { backend: string; pointer?: bigint };
    if (buffer.backend !== "gpu" || buffer.pointer === undefined) throw new CudaScriptError("CSR071", "dist: an array of another backend than the GPU's, where the job's collectives run through NCCL");
    return buffer.pointer + BigInt(a.byteOffset);
  }

  private finish(what: string, result: unknown): void {
    this.lib.check(what, result);
    currentBackend().synchronize();
  }

  allReduce(a: DeviceNDArray, dtype: string, op: string): void {
    const p = NcclComm.pointer(a);
    this.finish("ncclAllReduce", this.lib.allReduce(p, p, a.size, NCCL_DTYPES[dtype], NCCL_OPS[op], this.comm, 0n));
  }

  broadcast(a: DeviceNDArray, dtype: string, root: number): void {
    const p = NcclComm.pointer(a);
    this.finish("ncclBroadcast", this.lib.broadcast(p, p, a.size, NCCL_DTYPES[dtype], root, this.comm, 0n));
  }

  allGather(src: DeviceNDArray, dst: DeviceNDArray, dtype: string): void {
    this.finish("ncclAllGather", this.lib.allGather(NcclComm.pointer(src), NcclComm.pointer(dst), src.size, NCCL_DTYPES[dtype], this.comm, 0n));
  }

  reduceScatter(src: DeviceNDArray, dst: DeviceNDArray, dtype: string, op: string): void {
    this.finish("ncclReduceScatter", this.lib.reduceScatter(NcclComm.pointer(src), NcclComm.pointer(dst), dst.size, NCCL_DTYPES[dtype], NCCL_OPS[op], this.comm, 0n));
  }
}
