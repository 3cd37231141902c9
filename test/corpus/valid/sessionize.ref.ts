import { CorpusCase, seeded } from "../case";

/** Plain TypeScript sessionization: a new session at a new user or a gap longer than the timeout. */
function sessionize(ids: BigInt64Array, ts: BigInt64Array, timeout: bigint): Int32Array {
  const out = new Int32Array(ids.length);
  let start = 0;
  for (let i = 0; i < ids.length; i++) {
    if (i === 0 || ids[i] !== ids[i - 1] || ts[i]! - ts[i - 1]! > timeout) start = i;
    out[i] = start;
  }
  return out;
}

function sessionCase(name: string, ids: bigint[], ts: bigint[], timeout: bigint): CorpusCase {
  const n = ids.length;
  const grid = Math.ceil(n / 128);
  return {
    name,
    setup: () => ({ ids: BigInt64Array.from(ids), ts: BigInt64Array.from(ts), timeout, boundary: new Int32Array(n), results: new Int32Array(n) }),
    launches: [
      { kernel: "markSessions", grid, block: 128, args: ["ids", "ts", "timeout", "boundary"] },
      { kernel: "labelSessions", grid, block: 128, args: ["boundary", "results"] },
    ],
    reference: (inp) => {
      const results = sessionize(inp.ids as BigInt64Array, inp.ts as BigInt64Array, inp.timeout as bigint);
      const boundary = results.map((s, i) => (s === i ? i : -1));
      return { boundary, results };
    },
  };
}

// Numba's data (its timestamps are datetime64[ns] of small counts, its timeout np.int64 of 3600 s = 3600).
const NUMBA_IDS = [1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4].map(BigInt);
const NUMBA_SEC = [1, 2, 3, 5000, 5001, 5002, 1, 2, 3, 1, 2, 5000, 5001, 10000, 10001, 10002, 10003, 15000, 150001, 1, 5000, 50001, 15000, 20000, 25000, 25001, 25002, 25003].map(BigInt);

/** Real nanosecond timestamps (~2023), gaps around the one-hour timeout, some exactly one ns past it. */
function nanosecondClicks(n: number): { ids: bigint[]; ts: bigint[] } {
  const r = seeded(42);
  const HOUR = 3_600_000_000_000n;
  const ids: bigint[] = [], ts: bigint[] = [];
  let user = 1000n, t = 1_700_000_000_123_456_789n;
  for (let i = 0; i < n; i++) {
    if (r() < 0.05) user += 1n;
    const pick = r();
    t += pick < 0.1 ? HOUR + 1n : pick < 0.2 ? HOUR : BigInt(Math.floor(r() * 1e12));
    ids.push(user);
    ts.push(t);
  }
  return { ids, ts };
}
const clicks = nanosecondClicks(1000);

export const cases: CorpusCase[] = [
  sessionCase("Numba's example data, timeout 3600", NUMBA_IDS, NUMBA_SEC, 3600n),
  sessionCase("1000 clicks in nanoseconds past 2^53, timeout one hour (gaps of exactly 1 h and 1 h + 1 ns)", clicks.ids, clicks.ts, 3_600_000_000_000n),
];
