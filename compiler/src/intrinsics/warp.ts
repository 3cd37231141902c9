/**
 * Warp operations: shuffles, votes, match, `syncwarp`, `activemask` and `lanemaskLt`. The simulator
 * computes the synchronising ones over the lanes that reached them together (their semantics once:
 * intrinsics/sync.ts warpResults). On the GPU a shuffle or match of an f16 moves and compares its 16 bits
 * (as Numba compares a float's bits): only the value is f16, the mask, lane and delta stay integers.
 */
import { call, P } from "../cuda/precedence";
import { param, sig, type CudaCallContext, type CudaOut, type IntrinsicRecord, type WarpJsContext } from "./record";

const mask = param("mask", "u32");

/** A lane's number in the simulator's warp loop. */
const LANE = "$u - $w";
/** Every running thread of the warp, as `$u`. */
const EACH_LANE = "for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0)";

/**
 * A shuffle on the simulator: lane `$u` reads lane `$s` of the warp when it exists and is active, else
 * keeps its own value (as PTX's shfl.sync with an out-of-range or inactive source).
 */
function shuffleJs(source: (lane: string, x: string) => string): (c: WarpJsContext) => string[] {
  return (c) => {
    const v = (u: string) => c.arg(1, u);
    const read = `($s >= 0 && $s < 32 && $q < $e && (($am >>> $s) & 1) !== 0 ? ${v("$q")} : ${v("$u")})`;
    return [`${EACH_LANE} { const $s = ${source(LANE, c.arg(2, "$u"))}; const $q = $w + $s; ${c.result("$u", read)} }`];
  };
}

/** A vote on the simulator: `$bal` holds the lanes with a true predicate; `result` combines it with the mask. */
function voteJs(result: (bal: string, mask: string, allTrue: string) => string): (c: WarpJsContext) => string[] {
  return (c) => {
    const p = c.arg(1, "$u");
    const m = c.arg(0, "$u");
    const allTrue = `((($am & ${m}) & ~$bal) === 0)`;
    return [`let $bal = 0; for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0 && ${p}) $bal |= 1 << (${LANE});`, `${EACH_LANE} ${c.result("$u", result("$bal", m, allTrue))}`];
  };
}

/**
 * match on the simulator: CUDA compares bit patterns — for floats rt.sameBits (-0 is not 0, a NaN
 * matches the same NaN), else ===. match.all gives the lanes of the mask that take part (PTX: "the
 * non-exited threads in membermask") when they all have the same value, else 0.
 */
function matchJs(all: boolean): (c: WarpJsContext) => string[] {
  return (c) => {
    const v = (u: string) => c.arg(1, u);
    const float = c.argDTypes[1] === "f16" || c.argDTypes[1] === "f32" || c.argDTypes[1] === "f64";
    const same = float ? `rt.sameBits(${v("$q")}, ${v("$u")})` : `${v("$q")} === ${v("$u")}`;
    const peer = "$st[$q] === 0 && (($m >>> ($q - $w)) & 1) !== 0";
    return [
      `${EACH_LANE} { const $m = ${c.arg(0, "$u")};`,
      all
        ? `let $r = ($m & $am) >>> 0; for (let $q = $w; $q < $e; $q++) if (${peer} && !(${same})) { $r = 0; break; }`
        : `let $r = 0; for (let $q = $w; $q < $e; $q++) if (${peer} && ${same}) $r |= 1 << ($q - $w);`,
      `${c.result("$u", "($r >>> 0)")} }`,
    ];
  };
}

/** The value argument (index 1) as CUDA takes it: an f16's bits (CUDA has no half overload of match). */
function valueArgs(c: CudaCallContext): string[] {
  return c.t.map((t, i) => (i === 1 && c.argDTypes[1] === "f16" ? call("cs_half_bits", [t]).t : t));
}

function shuffle(name: string, cuda: string, last: string, numba: string, text: string, source: (lane: string, x: string) => string): IntrinsicRecord {
  return {
    jsWarp: shuffleJs(source),
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
function vote(name: string, result: "bool" | "u32", cuda: string, numba: string, text: string, js: (bal: string, mask: string, allTrue: string) => string): IntrinsicRecord {
  return {
    jsWarp: voteJs(js),
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
    jsWarp: matchJs(name === "matchAllSync"),
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
    jsWarp: () => [],
    cuda: (c) => call("__syncwarp", c.t),
  },
  shuffle("shflSync", "__shfl_sync", "srcLane", "cuda.shfl_sync(mask, value, src_lane)", "Returns `value` as held by lane `srcLane` of the warp.", (_, x) => `(${x}) & 31`),
  shuffle("shflUpSync", "__shfl_up_sync", "delta", "cuda.shfl_up_sync(mask, value, delta)", "Returns `value` from the lane `delta` below this one (lanes below `delta` keep their own).", (lane, x) => `${lane} - (${x})`),
  shuffle("shflDownSync", "__shfl_down_sync", "delta", "cuda.shfl_down_sync(mask, value, delta)", "Returns `value` from the lane `delta` above this one (the top lanes keep their own): the step of a warp reduction.", (lane, x) => `${lane} + (${x})`),
  shuffle("shflXorSync", "__shfl_xor_sync", "laneMask", "cuda.shfl_xor_sync(mask, value, lane_mask)", "Returns `value` from lane `laneid ^ laneMask`: a butterfly exchange (all-reduce within a warp).", (lane, x) => `${lane} ^ (${x})`),
  vote("allSync", "bool", "__all_sync", "cuda.all_sync(mask, predicate)", "True if the predicate is true for every lane in `mask`.", (_b, _m, allTrue) => allTrue),
  vote("anySync", "bool", "__any_sync", "cuda.any_sync(mask, predicate)", "True if the predicate is true for any lane in `mask`.", (bal, m) => `((${bal} & ${m}) !== 0)`),
  // Numba's eq_sync is vote.sync.uni: true when the predicate is the same in every lane of the mask.
  vote("eqSync", "bool", "__uni_sync", "cuda.eq_sync(mask, predicate)", "True if the predicate is the same (all true or all false) for every lane in `mask`.", (bal, m, allTrue) => `(${allTrue} || (${bal} & ${m}) === 0)`),
  vote("ballotSync", "u32", "__ballot_sync", "cuda.ballot_sync(mask, predicate)", "A 32-bit mask with bit N set when lane N (in `mask`) has a true predicate.", (bal, m) => `((${bal} & ${m}) >>> 0)`),
  {
    name: "activemask",
    paths: ["cuda.activemask"],
    numba: "cuda.activemask()",
    effect: "warp",
    uniformity: "lane",
    signatures: [sig("u32")],
    doc: { signature: "cuda.activemask(): u32", text: "The mask of lanes of the warp currently executing this call.", cuda: "__activemask()" },
    jsWarp: (c) => [`${EACH_LANE} ${c.result("$u", "($am >>> 0)")}`],
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
