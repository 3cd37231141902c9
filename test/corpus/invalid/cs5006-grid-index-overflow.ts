import { cuda } from "cudascript";

/** Clears a byte mask of 2^32 elements (4 GiB): more threads than an i32 index can count. */
export const clear = cuda.jit((mask: Uint8Array) => {
  const i = cuda.grid(1);
  if (i < mask.length) mask[i] = 0;
});

/** The same with a 64-bit index. */
export const clear64 = cuda.jit((mask: Uint8Array) => {
  const i = cuda.grid64(1);
  if (i < BigInt(mask.length)) mask[Number(i)] = 0;
});

const HUGE_BLOCKS = 4194304; // 2^22 blocks of 1024 threads = 2^32 threads

export function run(mask: Uint8Array, small: Uint8Array): void {
  clear.launch(HUGE_BLOCKS, 1024)(mask); // @expect CS5006
  clear64.launch(HUGE_BLOCKS, 1024)(mask);
  clear.launch(2097151, 1024)(small); // 2^31 - 1024 threads: every index fits
  clear.launch(Math.ceil(small.length / 256), 256)(small); // sizes not constant: nothing to say
}
