/**
 * Warp operations: shuffles, votes, match, `syncwarp`, `activemask` and `lanemaskLt`. The simulator
 * computes the synchronising ones over the lanes that reached them together (their semantics once:
 * intrinsics/sync.ts warpResults). On the GPU a shuffle or match of an f16 moves and compares its 16 bits
 * (as Numba compares a float's bits): only the value is f16, the mask, lane and delta stay integers.
 */
import { call, P } from "../cuda/precedence";
import { param, sig, type CudaCallContext, type CudaOut, type IntrinsicRecord } from "./record";

const mask = param("mask", "u32");

/** The value argument (index 1) as CUDA takes it: an f16's bits (CUDA has no half overload of match). */
function valueArgs(c: CudaCallContext): string[] {
  return c.t.map((t, i) => (i === 1 && c.argDTypes[1] === "f16" ? call("cs_half_bits", [t]).t : t));
}

function shuffle(name: string, cuda: string, last: string, numba: string, text: string): IntrinsicRecord {
  return {
    name,
    paths: [`cuda.${name}`],
    numba,
    effect: "warp",
    uniformity: "lane",
    signatures: [sig("T", mask, param("value", "warpValue"), param(last, "i32"))],
    doc: {
      signature: `cuda.${name}(mask: u32, value: T, ${last}: i32): T`,
      text: `${text} Every lane named in \`mask\` (usually \`0xffffffff\`) must execute the call. Works on every scalar type but complex (i32, u32, i64, u64, f16, f32, f64, bool).`,
      cuda: `${cuda}(mask, v, ${last})`,
    },
    half: "native",
    cuda: (c) => {
      const moved = call(cuda, valueArgs(c));
      return c.argDTypes[1] === "f16" ? call("cs_half_from_bits", [moved.t]) : moved;
    },
  };
}

/** A vote: the predicate of every lane of the mask, combined. */
function vote(name: string, result: "bool" | "u32", cuda: string, numba: string, text: string): IntrinsicRecord {
  return {
    name,
    paths: [`cuda.${name}`],
    numba,
    effect: "warp",
    uniformity: "lane",
    signatures: [sig(result, mask, param("predicate", "truthy"))],
    doc: { signature: `cuda.${name}(mask: u32, predicate: boolean | number): ${result === "bool" ? "boolean" : "u32"}`, text, cuda: `${cuda}(mask, p)` },
    cuda: (c): CudaOut => (result === "bool" ? { t: `${call(cuda, c.t).t} != 0`, p: P.eq } : call(cuda, c.t)),
  };
}

function match(name: string, cuda: (c: CudaCallContext) => CudaOut, numba: string, text: string, cudaDoc: string): IntrinsicRecord {
  return {
    name,
    paths: [`cuda.${name}`],
    numba,
    effect: "warp",
    uniformity: "lane",
    // CUDA's __match_*_sync take 32/64-bit integers, float and double and compare bit patterns.
    signatures: [sig("u32", mask, param("value", "warpValue"))],
    doc: { signature: `cuda.${name}(mask: u32, value: number | boolean | bigint): u32`, text: `${text} Compute capability 7.0+.`, cuda: cudaDoc },
    feature: () => "warpMatch",
    half: "native",
    cuda,
  };
}

export const WARP_RECORDS: readonly IntrinsicRecord[] = [
  {
    name: "syncwarp",
    paths: ["cuda.syncwarp"],
    numba: "cuda.syncwarp(mask)",
    effect: "warp",
    uniformity: "args",
    signatures: [sig("void", param("mask", "u32", 0xffffffff))],
    doc: { signature: "cuda.syncwarp(mask?: u32): void", text: "Barrier for the lanes of the warp named in `mask` (default all 32).", cuda: "__syncwarp(mask)" },
    cuda: (c) => call("__syncwarp", c.t),
  },
  shuffle("shflSync", "__shfl_sync", "srcLane", "cuda.shfl_sync(mask, value, src_lane)", "Returns `value` as held by lane `srcLane` of the warp."),
  shuffle("shflUpSync", "__shfl_up_sync", "delta", "cuda.shfl_up_sync(mask, value, delta)", "Returns `value` from the lane `delta` below this one (lanes below `delta` keep their own)."),
  shuffle("shflDownSync", "__shfl_down_sync", "delta", "cuda.shfl_down_sync(mask, value, delta)", "Returns `value` from the lane `delta` above this one (the top lanes keep their own): the step of a warp reduction."),
  shuffle("shflXorSync", "__shfl_xor_sync", "laneMask", "cuda.shfl_xor_sync(mask, value, lane_mask)", "Returns `value` from lane `laneid ^ laneMask`: a butterfly exchange (all-reduce within a warp)."),
  vote("allSync", "bool", "__all_sync", "cuda.all_sync(mask, predicate)", "True if the predicate is true for every lane in `mask`."),
  vote("anySync", "bool", "__any_sync", "cuda.any_sync(mask, predicate)", "True if the predicate is true for any lane in `mask`."),
  // Numba's eq_sync is vote.sync.uni: true when the predicate is the same in every lane of the mask.
  vote("eqSync", "bool", "__uni_sync", "cuda.eq_sync(mask, predicate)", "True if the predicate is the same (all true or all false) for every lane in `mask`."),
  vote("ballotSync", "u32", "__ballot_sync", "cuda.ballot_sync(mask, predicate)", "A 32-bit mask with bit N set when lane N (in `mask`) has a true predicate."),
  {
    name: "activemask",
    paths: ["cuda.activemask"],
    numba: "cuda.activemask()",
    effect: "warp",
    uniformity: "lane",
    signatures: [sig("u32")],
    doc: { signature: "cuda.activemask(): u32", text: "The mask of lanes of the warp currently executing this call.", cuda: "__activemask()" },
    cuda: () => call("__activemask", []),
  },
  match(
    "matchAnySync",
    (c) => call("__match_any_sync", valueArgs(c)),
    "cuda.match_any_sync(mask, value)",
    "The mask of the lanes in `mask` whose `value` has the same bits as this lane's (floats: `0` and `-0` differ, NaN matches NaN).",
    "__match_any_sync(mask, v)",
  ),
  match(
    "matchAllSync",
    (c) => {
      c.helper("matchAll");
      return call("cs_match_all_sync", valueArgs(c));
    },
    "cuda.match_all_sync(mask, value) (returns (mask, pred))",
    "`mask` if every lane in `mask` has the same `value` (same bits), else 0: Numba's `pred` is `result !== 0`.",
    "__match_all_sync(mask, v, &pred)",
  ),
  {
    name: "lanemaskLt",
    paths: ["cuda.lanemaskLt"],
    numba: "cuda.lanemask_lt()",
    // It reads the lane alone: no synchronisation.
    effect: "pure",
    uniformity: "lane",
    signatures: [sig("u32")],
    doc: {
      signature: "cuda.lanemaskLt(): u32",
      text: "The mask of the lanes below this one in its warp, `(1 << cuda.laneid) - 1`: with `cuda.popc(mask & cuda.lanemaskLt())` a lane finds its rank among the lanes of `mask`.",
      cuda: "%lanemask_lt",
    },
    cuda: (c) => {
      c.helper("lanemaskLt");
      return call("cs_lanemask_lt", []);
    },
    // %lanemask_lt: the bits of the lanes below this one (lane 31: 0x7fffffff).
    js: (c) => `(((1 << ${c.laneId()}) - 1) >>> 0)`,
  },
];
