/**
 * One collective step, computed once for every transport: the calls and bytes of all ranks (in rank
 * order) in, each rank's result bytes out, or the CSR072 error that says how the ranks disagree.
 */
import { CudaScriptError } from "../errors";
import { reduceAll, type ReduceOp } from "./reduce";
import type { CollectiveCall } from "./wire";

/** `dist.allReduce(f32[1000], "sum")`: how a call reads in messages. */
export function describeCall(call: CollectiveCall): string {
  const array = call.dtype !== undefined ? `${call.dtype}[${call.count}]` : "";
  switch (call.op) {
    case "allReduce":
      return `dist.allReduce(${array}, "${call.reduce}")`;
    case "reduceScatter":
      return `dist.reduceScatter(${array} → ${call.dtype}[${call.resultCount}], "${call.reduce}")`;
    case "broadcast":
      return `dist.broadcast(${array}, root ${call.root})`;
    case "allGather":
      return `dist.allGather(${array} → ${call.dtype}[${call.resultCount}])`;
    case "barrier":
      return "dist.barrier()";
  }
}

function same(a: CollectiveCall, b: CollectiveCall): boolean {
  return a.op === b.op && a.dtype === b.dtype && a.count === b.count && a.resultCount === b.resultCount && a.reduce === b.reduce && a.root === b.root;
}

/** Each rank's result of step `seq`, given every rank's call and payload. */
export function computeStep(seq: number, calls: readonly CollectiveCall[], payloads: readonly Uint8Array[]): Uint8Array[] {
  const first = calls[0]!;
  const other = calls.findIndex((c) => !same(c, first));
  if (other >= 0)
    throw new CudaScriptError(
      "CSR072",
      `the ranks disagree at collective #${seq + 1}: rank 0 called ${describeCall(first)}, rank ${other} called ${describeCall(calls[other]!)}. ` +
        `Every rank must make the same collective calls in the same order, with arrays of the same dtype and size`,
    );
  const size = calls.length;
  switch (first.op) {
    case "barrier":
      return calls.map(() => new Uint8Array(0));
    case "allReduce": {
      const reduced = reduceAll(first.reduce as ReduceOp, first.dtype!, payloads);
      return calls.map(() => reduced);
    }
    case "broadcast":
      return calls.map(() => payloads[first.root!]!);
    case "allGather": {
      const gathered = new Uint8Array(payloads.reduce((n, p) => n + p.byteLength, 0));
      let at = 0;
      for (const p of payloads) {
        gathered.set(p, at);
        at += p.byteLength;
      }
      return calls.map(() => gathered);
    }
    case "reduceScatter": {
      const reduced = reduceAll(first.reduce as ReduceOp, first.dtype!, payloads);
      const chunk = reduced.byteLength / size;
      return calls.map((_, r) => reduced.subarray(r * chunk, (r + 1) * chunk));
    }
  }
}
