/**
 * `dist`: the ranks of a job started by `cudascript launch` and the collectives between them, shaped
 * like NCCL's (ncclAllReduce, ncclBroadcast, ncclAllGather, ncclReduceScatter, ncclSend/ncclRecv).
 * Every call takes device arrays and resolves when this rank's arrays hold the result. On the GPU
 * backend with NCCL the collectives run through it (nccl-comm.ts); otherwise the arrays' bytes are
 * staged through the host and exchanged over the job's transport (transport.ts) (docs/distributed.md).
 */
import { CudaScriptError } from "../errors";
import { DeviceNDArray } from "../host/arrays";
import { readPlacement, type DistPlacement } from "./env";
import { bytesPerElement, COLLECTIVE_DTYPES, REDUCE_OPS, view, type ReduceOp } from "./reduce";
import type { Transport } from "./transport";
import { currentBackend } from "../host/device";
import type { NcclComm } from "./nccl-comm";
import type { CollectiveCall } from "./wire";

export type { ReduceOp } from "./reduce";

/** The ranks of this job and the collectives between them (`import { dist } from "cudascript"`). */
export interface Dist {
  /** This process's rank, 0 to size - 1. */
  readonly rank: number;
  /** How many ranks the job has (1 when the program was not started by `cudascript launch`). */
  readonly size: number;
  /** This rank's index among the ranks of its node: the GPU (or virtual device) it uses. */
  readonly localRank: number;
  /** Reduces `a` over all ranks, element by element, in place: every rank ends with the same result (ncclAllReduce). */
  allReduce(a: DeviceNDArray<any>, op?: ReduceOp): Promise<void>;
  /** Copies `root`'s `a` into every rank's `a` (ncclBroadcast). */
  broadcast(a: DeviceNDArray<any>, root?: number): Promise<void>;
  /** Every rank's `src`, in rank order, into every rank's `dst` (size × src.size elements; ncclAllGather). */
  allGather(src: DeviceNDArray<any>, dst: DeviceNDArray<any>): Promise<void>;
  /** Reduces `src` over all ranks and leaves part `rank` of the result in `dst` (src.size = size × dst.size; ncclReduceScatter). */
  reduceScatter(src: DeviceNDArray<any>, dst: DeviceNDArray<any>, op?: ReduceOp): Promise<void>;
  /** Resolves when every rank has called it. */
  barrier(): Promise<void>;
  /** Sends `a` to rank `peer`, whose matching `recv` takes it (ncclSend). Resolves once sent: it does not wait for the recv. */
  send(a: DeviceNDArray<any>, peer: number): Promise<void>;
  /** Receives into `a` the next array rank `peer` sends to this rank (ncclRecv). */
  recv(a: DeviceNDArray<any>, peer: number): Promise<void>;
}

let placementCache: DistPlacement | undefined;
let transportCache: Transport | undefined;

/**
 * The job as the environment describes it. A rank of a job of several joins it (connects to rank 0,
 * or starts listening as rank 0) the first time it asks where it stands, so that a rank that later
 * hangs before its first collective is reported as such (CSR074), not as one that never came (CSR077).
 */
function placement(): DistPlacement {
  if (!placementCache) {
    placementCache = readPlacement();
    if (placementCache.size > 1) transport();
  }
  return placementCache;
}

function transport(): Transport {
  if (!transportCache) {
    const p = placement();
    // Loaded at the first use: a program that never uses `dist` does not load node:net at its start.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Hub, Peer } = require("./transport") as typeof import("./transport");
    transportCache = p.rank === 0 ? new Hub(p, p.job) : new Peer(p, p.job);
  }
  return transportCache;
}

function argError(message: string): CudaScriptError {
  return new CudaScriptError("CSR071", message);
}

/** The array's dtype and bytes, checked: a live, contiguous device array of a dtype collectives move. */
function checkArray(what: string, a: unknown): { array: DeviceNDArray; dtype: string } {
  if (!(a instanceof DeviceNDArray))
    throw argError(`${what} takes a device array (cuda.toDevice(data) or cuda.deviceArray(n, dtype)), not ${a === null ? "null" : Array.isArray(a) ? "a plain array" : ArrayBuffer.isView(a) ? `a host ${a.constructor.name}: copy it with cuda.toDevice first` : typeof a}`);
  a.checkAlive(what);
  const dtype = a.dtype.name as string;
  if (!(COLLECTIVE_DTYPES as readonly string[]).includes(dtype))
    throw argError(`${what} cannot move ${dtype} arrays: use one of ${COLLECTIVE_DTYPES.join(", ")} (e.g. a u8 array for booleans, or the f32 parts of a c64 array through a Float32Array view of its data)`);
  if (!a.isCContiguous()) throw argError(`${what} takes a contiguous array, not a strided view of ${a.shape.join(" × ")}: copy it into a contiguous array first (cuda.deviceArray and copyToDevice)`);
  return { array: a, dtype };
}

function checkOp(what: string, op: unknown): ReduceOp {
  if (!(REDUCE_OPS as readonly unknown[]).includes(op)) throw argError(`${what}: the reduction is "sum", "prod", "max" or "min", not ${JSON.stringify(op)}`);
  return op as ReduceOp;
}

function checkRank(what: string, r: unknown, name: string): number {
  const size = placement().size;
  if (typeof r !== "number" || !Number.isInteger(r) || r < 0 || r >= size)
    throw argError(`${what}: ${name} must be a rank of this job, a whole number from 0 to ${size - 1}, not ${typeof r === "number" ? r : JSON.stringify(r)}`);
  return r;
}

function bytesOf(array: DeviceNDArray): Uint8Array {
  const host = array.copyToHost() as ArrayBufferView;
  return new Uint8Array(host.buffer, host.byteOffset, host.byteLength);
}

function store(array: DeviceNDArray, dtype: string, bytes: Uint8Array): void {
  if (bytes.byteLength !== array.size * bytesPerElement(dtype)) throw new CudaScriptError("CSR030", "internal: a collective's result has the wrong size");
  array.copyToDevice(view(dtype, bytes) as Parameters<DeviceNDArray["copyToDevice"]>[0]);
}

async function collective(call: CollectiveCall, payload: Uint8Array): Promise<Uint8Array> {
  return transport().collective(call, payload);
}

let ncclCache: Promise<NcclComm | undefined> | undefined;

/**
 * NCCL for a collective of `dtype` on the GPU backend, when every rank of the job has it (nccl-comm.ts);
 * undefined for the TCP transport: on the simulator, for a job of one rank, for dtypes NCCL lacks.
 */
async function ncclFor(dtype: string): Promise<NcclComm | undefined> {
  const p = placement();
  if (p.size === 1 || currentBackend().kind !== "gpu") return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { NcclComm } = require("./nccl-comm") as typeof import("./nccl-comm");
  ncclCache ??= NcclComm.create(p, transport());
  const comm = await ncclCache;
  return comm && NcclComm.moves(dtype) ? comm : undefined;
}

export const dist: Dist = {
  get rank() {
    return placement().rank;
  },
  get size() {
    return placement().size;
  },
  get localRank() {
    return placement().localRank;
  },

  async allReduce(a, op = "sum") {
    const { array, dtype } = checkArray("dist.allReduce", a);
    const reduce = checkOp("dist.allReduce", op);
    const nccl = await ncclFor(dtype);
    if (nccl) return nccl.allReduce(array, dtype, reduce);
    store(array, dtype, await collective({ op: "allReduce", dtype, count: array.size, resultCount: array.size, reduce }, bytesOf(array)));
  },

  async broadcast(a, root = 0) {
    const { array, dtype } = checkArray("dist.broadcast", a);
    checkRank("dist.broadcast", root, "root");
    const nccl = await ncclFor(dtype);
    if (nccl) return nccl.broadcast(array, dtype, root);
    const mine = placement().rank === root;
    const result = await collective({ op: "broadcast", dtype, count: array.size, resultCount: array.size, root }, mine ? bytesOf(array) : new Uint8Array(0));
    if (!mine) store(array, dtype, result);
  },

  async allGather(src, dst) {
    const s = checkArray("dist.allGather", src);
    const d = checkArray("dist.allGather", dst);
    const size = placement().size;
    if (s.dtype !== d.dtype) throw argError(`dist.allGather: src is ${s.dtype} and dst ${d.dtype}: give both the same dtype`);
    if (d.array.size !== s.array.size * size)
      throw argError(`dist.allGather: dst holds ${d.array.size} elements; it needs size × src.size = ${size} × ${s.array.size} = ${size * s.array.size} (every rank's src, in rank order)`);
    const nccl = await ncclFor(s.dtype);
    if (nccl) return nccl.allGather(s.array, d.array, s.dtype);
    store(d.array, d.dtype, await collective({ op: "allGather", dtype: s.dtype, count: s.array.size, resultCount: d.array.size }, bytesOf(s.array)));
  },

  async reduceScatter(src, dst, op = "sum") {
    const s = checkArray("dist.reduceScatter", src);
    const d = checkArray("dist.reduceScatter", dst);
    const reduce = checkOp("dist.reduceScatter", op);
    const size = placement().size;
    if (s.dtype !== d.dtype) throw argError(`dist.reduceScatter: src is ${s.dtype} and dst ${d.dtype}: give both the same dtype`);
    if (s.array.size !== d.array.size * size)
      throw argError(`dist.reduceScatter: src holds ${s.array.size} elements; it needs size × dst.size = ${size} × ${d.array.size} = ${size * d.array.size} (rank r gets part r of the reduced src)`);
    const nccl = await ncclFor(s.dtype);
    if (nccl) return nccl.reduceScatter(s.array, d.array, s.dtype, reduce);
    store(d.array, d.dtype, await collective({ op: "reduceScatter", dtype: s.dtype, count: s.array.size, resultCount: d.array.size, reduce }, bytesOf(s.array)));
  },

  async barrier() {
    await collective({ op: "barrier" }, new Uint8Array(0));
  },

  async send(a, peer) {
    const { array, dtype } = checkArray("dist.send", a);
    checkRank("dist.send", peer, "peer");
    if (peer === placement().rank) throw argError(`dist.send: rank ${peer} sending to itself: copy the array instead (b.copyToDevice(a))`);
    transport().send(peer, dtype, array.size, bytesOf(array));
  },

  async recv(a, peer) {
    const { array, dtype } = checkArray("dist.recv", a);
    checkRank("dist.recv", peer, "peer");
    const me = placement().rank;
    if (peer === me) throw argError(`dist.recv: rank ${peer} receiving from itself: copy the array instead (b.copyToDevice(a))`);
    const got = await transport().recv(peer);
    if (got.dtype !== dtype || got.count !== array.size)
      throw new CudaScriptError(
        "CSR072",
        `dist.recv on rank ${me} expects ${dtype}[${array.size}] from rank ${peer}, which sent ${got.dtype}[${got.count}]: each recv must match the peer's send, in order`,
      );
    store(array, dtype, got.payload);
  },
};
