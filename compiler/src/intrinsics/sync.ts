/**
 * The semantics of CUDA's barriers and warp operations, once, as plain functions over the values the
 * threads bring: the debugger's stepping backend (runtime/src/debugger/block-scheduler.ts) combines its
 * threads' requests with them, and the simulator's inlined fast loops (compiler/src/js/emit/sync.ts
 * `syncCode`) are held equal to them by a property test over random lanes, masks and values
 * (test/simulator/sync-semantics.test.ts). A warp operation sees the lanes of its warp that reached it
 * together (the active mask); a lane reading an inactive or out-of-warp lane gets its own value back;
 * a barrier's count/and/or run over the threads that reached it. Which operations are barriers and which
 * warp operations is the records' effect kind (intrinsics/index.ts). Imports nothing
 * (`@cudascript/compiler/intrinsics/sync`): the simulator's run time reads `sameBits` from here.
 */

const nanPair = new Float64Array(2);
const nanPairWords = new Uint32Array(nanPair.buffer);

/**
 * Whether two values have the same bits, as CUDA's match.sync compares them (cuda.matchAnySync /
 * matchAllSync, as Numba does for floats): 0 and -0 differ, and a NaN matches a NaN with the same sign
 * and payload only. An f32 value's f64 form keeps its payload, so comparing the f64 bits serves f32 too.
 * (A signalling NaN is already quiet when it is read from an array: the simulator cannot tell it from the
 * quiet NaN with the same payload.) Integers and bigints compare by value.
 */
export function sameBits(a: number | bigint, b: number | bigint): boolean {
  if (a === b) return a !== 0 || 1 / a === 1 / (b as number);
  if (a === a || b === b) return false;
  nanPair[0] = a as number;
  nanPair[1] = b as number;
  return nanPairWords[0] === nanPairWords[2] && nanPairWords[1] === nanPairWords[3];
}

/** What a thread asked for at a `(yield $S.req(op, site, …args))`. */
export interface SyncRequest {
  op: string;
  site: number;
  readonly args: unknown[];
}


/** The results of a barrier for the threads waiting at it (in thread order). */
export function barrierResults(reqs: readonly SyncRequest[]): unknown[] {
  let c = 0, n = 0;
  for (const r of reqs) {
    if (r.op === "syncthreads") continue;
    n++;
    if (r.args[0]) c++;
  }
  return reqs.map((r) => {
    switch (r.op) {
      case "syncthreadsCount":
        return c;
      case "syncthreadsAnd":
        return c === n ? 1 : 0;
      case "syncthreadsOr":
        return c > 0 ? 1 : 0;
      default:
        return undefined;
    }
  });
}

/**
 * The results of one warp operation for the lanes that reached it together. `lanes[i]` is the lane
 * number (0..31) of `reqs[i]`; `width` is how many lanes the warp has (the last warp of a block can be
 * partial).
 */
export function warpResults(op: string, lanes: readonly number[], reqs: readonly SyncRequest[], width: number): unknown[] {
  let am = 0;
  for (const l of lanes) am |= 1 << l;
  const byLane: (SyncRequest | undefined)[] = new Array(32);
  lanes.forEach((l, i) => (byLane[l] = reqs[i]));
  switch (op) {
    case "syncwarp":
      return reqs.map(() => undefined);
    case "activemask":
      return reqs.map(() => am >>> 0);
    case "shflSync":
    case "shflUpSync":
    case "shflDownSync":
    case "shflXorSync":
      return reqs.map((r, i) => {
        const lane = lanes[i]!;
        const x = r.args[2] as number;
        const s = op === "shflSync" ? x & 31 : op === "shflUpSync" ? lane - x : op === "shflDownSync" ? lane + x : lane ^ x;
        return s >= 0 && s < 32 && s < width && ((am >>> s) & 1) !== 0 ? byLane[s]!.args[1] : r.args[1];
      });
    case "ballotSync":
    case "allSync":
    case "anySync":
    case "eqSync": {
      let bal = 0;
      reqs.forEach((r, i) => {
        if (r.args[1]) bal |= 1 << lanes[i]!;
      });
      return reqs.map((r) => {
        const mask = r.args[0] as number;
        const allTrue = ((am & mask) & ~bal) === 0;
        if (op === "ballotSync") return (bal & mask) >>> 0;
        if (op === "anySync") return (bal & mask) !== 0;
        if (op === "eqSync") return allTrue || (bal & mask) === 0;
        return allTrue;
      });
    }
    case "matchAnySync":
    case "matchAllSync":
      // Bit patterns (sameBits: -0 is not 0, a NaN matches the same NaN).
      return reqs.map((r) => {
        const m = r.args[0] as number;
        if (op === "matchAnySync") {
          let out = 0;
          lanes.forEach((q, j) => {
            if (((m >>> q) & 1) !== 0 && sameBits(reqs[j]!.args[1] as number | bigint, r.args[1] as number | bigint)) out |= 1 << q;
          });
          return out >>> 0;
        }
        // match.all gives the lanes of the mask that take part (the simulator's rule), or 0.
        let out = (m & am) >>> 0;
        lanes.forEach((q, j) => {
          if (((m >>> q) & 1) !== 0 && !sameBits(reqs[j]!.args[1] as number | bigint, r.args[1] as number | bigint)) out = 0;
        });
        return out >>> 0;
      });
    default:
      throw new Error(`CudaScript debugger: unknown synchronisation ${op}`);
  }
}
