import { cuda, i64 } from "cudascript";

/**
 * Click-stream sessionization with int64 timestamps, ported from Numba's documentation example
 * (numba/cuda/tests/doc_examples/test_sessionize.py). Numba marks the boundaries and fills the
 * labels in one kernel with a grid-wide sync (cooperative groups); CudaScript has none, so it is two
 * launches on one stream, which run in order: mark, then label.
 */
export const markSessions = cuda.jit((userId: BigInt64Array, timestamp: BigInt64Array, sessionTimeout: i64, boundary: Int32Array) => {
  const gid = cuda.grid(1);
  const size = userId.length;
  if (gid >= size) return;
  let isSessBoundary = true;
  if (gid !== 0) {
    const newUser = userId[gid] !== userId[gid - 1];
    // Exact in 64 bits: nanosecond timestamps (~1.7e18) are far past 2^53.
    const timedOut = timestamp[gid] - timestamp[gid - 1] > sessionTimeout;
    isSessBoundary = newUser || timedOut;
  }
  boundary[gid] = isSessBoundary ? gid : -1;
});

/** Each session's first element labels the elements after it, up to the next boundary. */
export const labelSessions = cuda.jit((boundary: Int32Array, results: Int32Array) => {
  const gid = cuda.grid(1);
  if (gid >= boundary.length) return;
  if (boundary[gid] !== gid) return;
  results[gid] = gid;
  let lookAhead = gid + 1;
  while (lookAhead < boundary.length && boundary[lookAhead] === -1) {
    results[lookAhead] = gid;
    lookAhead += 1;
  }
});
