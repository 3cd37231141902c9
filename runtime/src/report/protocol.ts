/**
 * The results protocol between a running host program and whoever displays its results (the VS Code
 * results panel, or any tool): one JSON object per line, appended to the file named by the environment
 * variable CUDASCRIPT_RESULTS_FILE when it is set. Nothing is written otherwise.
 */

export const RESULTS_FILE_ENV = "CUDASCRIPT_RESULTS_FILE";
export const PROTOCOL_VERSION = 1;

export type Dim3Tuple = [number, number, number];

/** Start of a run: what ran, on which backend. */
export interface RunRecord {
  readonly type: "run";
  readonly version: number;
  readonly program: string;
  readonly backend: "gpu" | "simulator";
  /** GPU name and compute capability, or "Simulator (N workers)". */
  readonly device: string;
  readonly startedAt: string;
}

/** One kernel launch, with what it cost. */
export interface LaunchRecord {
  readonly type: "launch";
  readonly id: number;
  readonly kernel: string;
  /** Where the kernel is defined. */
  readonly file?: string;
  readonly line?: number;
  readonly grid: Dim3Tuple;
  readonly block: Dim3Tuple;
  readonly sharedMemBytes: number;
  readonly backend: "gpu" | "simulator";
  readonly timings: {
    /** Making the kernel runnable, on its first reported launch: compiling it from source, NVRTC/JIT on a GPU, loading the simulator's module. */
    readonly compileMs?: number;
    readonly hostToDeviceMs?: number;
    /** Absent when the launch failed. */
    readonly kernelMs?: number;
    readonly deviceToHostMs?: number;
  };
  /** The launch failed (a kernel fault such as CSR020, a GPU error): its code and message. */
  readonly error?: { readonly code?: string; readonly message: string };
  /** On a GPU `percent` is the driver's (cuOccupancyMaxActiveBlocksPerMultiprocessor); `limitedBy` is empty when the calculator does not know the arch. */
  readonly occupancy?: { readonly arch: string; readonly percent: number; readonly limitedBy: string[]; readonly registers?: number; readonly source?: "driver" | "calculator" };
}

export interface ArrayStats {
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  readonly nanCount: number;
  readonly infCount: number;
}

/**
 * An output array. `data` holds at most `MAX_ARRAY_VALUES` values (row-major, from the start); `truncated`
 * says whether there were more. Statistics always cover the whole array.
 */
export interface ArrayRecord {
  readonly type: "array";
  readonly name: string;
  readonly dtype: string;
  readonly shape: number[];
  readonly data: number[];
  readonly truncated: boolean;
  readonly stats: ArrayStats;
  /** The launch that produced it, when known. */
  readonly launchId?: number;
  /** Comparison with a reference the program supplied. */
  readonly diff?: { readonly maxAbsError: number; readonly mismatches: number; readonly tolerance: number; readonly firstMismatch?: number };
}

/** A sanitizer finding or a launch error, with its source location. */
export interface FindingRecord {
  readonly type: "finding";
  readonly kind: string;
  readonly message: string;
  readonly kernel?: string;
  readonly file?: string;
  readonly line?: number;
  readonly block?: Dim3Tuple;
  readonly thread?: Dim3Tuple;
}

/** A line the program printed, for the panel's log. */
export interface LogRecord {
  readonly type: "log";
  readonly text: string;
}

export type ResultRecord = RunRecord | LaunchRecord | ArrayRecord | FindingRecord | LogRecord;

export const MAX_ARRAY_VALUES = 1 << 20;

export function arrayStats(data: ArrayLike<number>): ArrayStats {
  let min = Infinity, max = -Infinity, sum = 0, count = 0, nanCount = 0, infCount = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if (Number.isNaN(v)) nanCount++;
    else if (!Number.isFinite(v)) infCount++;
    else {
      if (v < min) min = v;
      if (v > max) max = v;
      sum += v;
      count++;
    }
  }
  return { min: count ? min : NaN, max: count ? max : NaN, mean: count ? sum / count : NaN, nanCount, infCount };
}

/** Parses a results file's text; malformed lines are skipped (a run may be cut off mid-line). */
export function parseResults(text: string): ResultRecord[] {
  const out: ResultRecord[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      const r = JSON.parse(line) as ResultRecord;
      if (r && typeof r === "object" && typeof r.type === "string") out.push(r);
    } catch {
      /* partial last line */
    }
  }
  return out;
}
