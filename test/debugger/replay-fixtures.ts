/**
 * The kernels the replay tests (replay*.test.ts) fault in, one text each so the tests compose the files
 * they need; `// marker` comments name the lines the tests expect the replay to stop at.
 */

export const IMPORTS = `import { cuda, f32, i32 } from "cudascript";\n`;

/** A shared-memory race (CSR021 under the sanitizer): from k = 2 on, thread t reads s[t - 1], written by thread t - 1 with no barrier between. */
export const RACY = `export const racy = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(8, f32);
  const t = cuda.threadIdx.x;
  let acc: f32 = 0;
  for (let k = 0; k < 3; k++) {
    s[t] = t + k; // write own
    const v = s[k === 2 && t > 0 ? t - 1 : t]; // racy read
    acc += v;
  }
  out[t] = acc;
});
`;

/** A kernel that throws (CSR085) in thread `bad`, at its second pass; launched as its @run tag says, thread 6 is block 1's thread 2. */
export const RAISING = `/** @run grid=2 block=4 args=[zeros(8, i32), scalar(6)] */
export const raising = cuda.jit((out: Int32Array, bad: i32) => {
  const t = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
  for (let k = 0; k < 3; k++) {
    out[t] += k;
    if (t === bad && k === 1) throw new Error("bad thread"); // raise
  }
});
`;

/** The 1-based line of the first line of `text` that contains `marker`. */
export function lineIn(text: string, marker: string): number {
  const i = text.split("\n").findIndex((l) => l.includes(marker));
  if (i < 0) throw new Error(`no line contains ${marker}`);
  return i + 1;
}
