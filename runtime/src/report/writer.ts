/** Appends result records to CUDASCRIPT_RESULTS_FILE when it is set; a no-op otherwise. */
import * as fs from "node:fs";
import { fileKind } from "../host/cache-files";
import { arrayStats, MAX_ARRAY_VALUES, RESULTS_FILE_ENV, type ArrayRecord, type ResultRecord } from "./protocol";

let fd: number | undefined | null = null;

function target(): number | undefined {
  if (fd !== null) return fd;
  const file = process.env[RESULTS_FILE_ENV];
  fd = undefined;
  if (file) {
    try {
      // Non-blocking: opening a FIFO with no reader must not wait for one (the program would never start its first launch).
      fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NONBLOCK ?? 0), 0o666);
      const stat = fs.fstatSync(fd);
      if (!stat.isFile()) {
        fs.closeSync(fd);
        fd = undefined;
        process.stderr.write(`cudascript: note: ${RESULTS_FILE_ENV}=${file} is not a regular file (${fileKind(stat)}): launch results are not recorded; name a file\n`);
      }
    } catch (err) {
      fd = undefined;
      // A FIFO with no reader (ENXIO) says the same; other failures (no such folder) stay silent, as before.
      if ((err as NodeJS.ErrnoException).code === "ENXIO") process.stderr.write(`cudascript: note: ${RESULTS_FILE_ENV}=${file} is not a regular file (a FIFO): launch results are not recorded; name a file\n`);
    }
  }
  return fd;
}

export function resultsEnabled(): boolean {
  return target() !== undefined;
}

export function writeRecord(record: ResultRecord): void {
  const f = target();
  if (f === undefined) return;
  // NaN/Infinity are not JSON: they travel as null and are counted in stats.
  fs.writeSync(f, JSON.stringify(record) + "\n");
}

let launchCounter = 0;
export function nextLaunchId(): number {
  return ++launchCounter;
}

/** Builds an ArrayRecord from host data (row-major), comparing with `reference` when given. */
export function arrayRecord(
  name: string,
  dtype: string,
  shape: number[],
  data: ArrayLike<number>,
  options: { launchId?: number; reference?: ArrayLike<number>; tolerance?: number } = {},
): ArrayRecord {
  const n = Math.min(data.length, MAX_ARRAY_VALUES);
  const values: number[] = new Array(n);
  for (let i = 0; i < n; i++) values[i] = data[i]!;
  let diff: ArrayRecord["diff"];
  if (options.reference) {
    const tol = options.tolerance ?? 0;
    let maxAbsError = 0, mismatches = 0, firstMismatch: number | undefined;
    for (let i = 0; i < data.length; i++) {
      const a = data[i]!, b = options.reference[i] ?? NaN;
      const err = Math.abs(a - b);
      const same = a === b || (Number.isNaN(a) && Number.isNaN(b)) || err <= tol * Math.max(1, Math.abs(b));
      if (!Number.isNaN(err) && err > maxAbsError) maxAbsError = err;
      if (!same) {
        mismatches++;
        if (firstMismatch === undefined) firstMismatch = i;
      }
    }
    diff = { maxAbsError, mismatches, tolerance: tol, firstMismatch };
  }
  return { type: "array", name, dtype, shape, data: values, truncated: data.length > n, stats: arrayStats(data), launchId: options.launchId, diff };
}
