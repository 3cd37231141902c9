import { cuda } from "cudascript";

/** Warp match/vote intrinsics given a whole array (or a missing argument) where one value per lane was meant. */
export const groupByKey = cuda.jit((keys: Int32Array, peers: Uint32Array) => {
  const i = cuda.grid(1);
  const any = cuda.matchAnySync(0xffffffff, keys); // @expect CS2012
  const all = cuda.matchAllSync(keys, 1); // @expect CS2012
  const same = cuda.eqSync(0xffffffff); // @expect CS2006
  const below = cuda.lanemaskLt(i); // @expect CS2006
  if (i < peers.length) peers[i] = any | all | below | (same ? 1 : 0);
});

export const groupByKeyOk = cuda.jit((keys: Int32Array, peers: Uint32Array) => {
  const i = cuda.grid(1);
  const key = i < keys.length ? keys[i] : -1;
  const any = cuda.matchAnySync(0xffffffff, key);
  const all = cuda.matchAllSync(0xffffffff, key);
  const same = cuda.eqSync(0xffffffff, key > 0);
  if (i < peers.length) peers[i] = any | all | cuda.lanemaskLt() | (same ? 1 : 0);
});
