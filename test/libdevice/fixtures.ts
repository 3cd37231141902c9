/**
 * The libdevice fixtures (written by scripts/libdevice/fixtures.py) and how results are judged against
 * them: ulp distance, CUDA's documented bound of each function (the table's `accuracy`), NaN/±Inf/−0.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { LibdeviceAccuracy, LibdeviceFunction, LibdeviceType } from "@cudascript/compiler/dist/intrinsics/libdevice-table.js";

export const LIBDEVICE_TEST_DIR = path.resolve(__dirname, "../../libdevice");
export const FIXTURES_DIR = path.join(LIBDEVICE_TEST_DIR, "fixtures");
export const RESULTS_DIR = path.join(LIBDEVICE_TEST_DIR, "results");

export type Value = number | bigint;
export type Encoded = string | number;
export interface FixtureFunction {
  readonly params: LibdeviceType[];
  readonly results: LibdeviceType[];
  readonly cases: [Encoded[], Encoded[]][];
}

export function loadFixtures(): Map<string, FixtureFunction> {
  const all = new Map<string, FixtureFunction>();
  for (const file of fs.readdirSync(FIXTURES_DIR).filter((f) => f.endsWith(".json")).sort()) {
    const data = JSON.parse(fs.readFileSync(path.join(FIXTURES_DIR, file), "utf8")) as { functions: Record<string, FixtureFunction> };
    for (const [name, fn] of Object.entries(data.functions)) all.set(name, fn);
  }
  return all;
}

const view = new DataView(new ArrayBuffer(8));
export function decode(value: Encoded, type: LibdeviceType): Value {
  switch (type) {
    case "f64":
      view.setBigUint64(0, BigInt(`0x${value}`));
      return view.getFloat64(0);
    case "f32":
      view.setUint32(0, Number.parseInt(value as string, 16));
      return view.getFloat32(0);
    case "i64":
      return BigInt(value);
    default:
      return Number(value);
  }
}

/** The float's position on the number line counted in ulps (±0 both 0), as a bigint. */
function ordinal(x: number, type: "f32" | "f64"): bigint {
  if (type === "f32") {
    view.setFloat32(0, x);
    const bits = view.getUint32(0);
    const magnitude = BigInt(bits & 0x7fffffff);
    return bits >>> 31 ? -magnitude : magnitude;
  }
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const magnitude = bits & 0x7fffffffffffffffn;
  return bits >> 63n ? -magnitude : magnitude;
}
export function ulpDistance(a: number, b: number, type: "f32" | "f64"): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b) ? 0 : Infinity;
  const d = ordinal(a, type) - ordinal(b, type);
  return Number(d < 0n ? -d : d);
}
function ulpOf(x: number, type: "f32" | "f64"): number {
  const a = Math.abs(x);
  if (!Number.isFinite(a)) return Infinity;
  const [p, emin] = type === "f32" ? [24, -126] : [53, -1022];
  const e = a === 0 ? emin : Math.max(Math.floor(Math.log2(a)), emin);
  return 2 ** (e - p + 1);
}

export interface Verdict {
  readonly ok: boolean;
  /** ulp distance from the reference (0 for integers that match). */
  readonly ulps: number;
  /** Where the applicable bound is absolute: |result − reference| (the ulp distance is then not counted). */
  readonly absError?: number;
  readonly why?: string;
}

/** Folds one verdict into a function's result. */
export function record(r: FunctionResult, v: Verdict): void {
  if (v.absError !== undefined) r.maxAbs = Math.max(r.maxAbs ?? 0, v.absError);
  else if (v.ulps !== Infinity) r.maxUlp = Math.max(r.maxUlp, v.ulps);
}

/** Judges one result against its reference under the function's documented accuracy. */
export function judge(fn: LibdeviceFunction, args: Value[], got: Value, want: Value, type: LibdeviceType): Verdict {
  if (type === "i64" || type === "i32" || type === "i16") {
    return got === want ? { ok: true, ulps: 0 } : { ok: false, ulps: Infinity, why: `${String(got)} ≠ ${String(want)}` };
  }
  if (typeof got !== "number" || typeof want !== "number") return { ok: false, ulps: Infinity, why: `not a number: ${String(got)}` };
  if (Number.isNaN(want)) return Number.isNaN(got) ? { ok: true, ulps: 0 } : { ok: false, ulps: Infinity, why: `${got}, want NaN` };
  if (Number.isNaN(got)) return { ok: false, ulps: Infinity, why: `NaN, want ${want}` };
  if (type === "f32" && Math.fround(got) !== got) return { ok: false, ulps: Infinity, why: `${got} is not a binary32 value (want ${want})` };
  const ulps = ulpDistance(got, want, type);
  const a: LibdeviceAccuracy = fn.accuracy;
  const firstFloat = fn.params.findIndex((p) => p.type === "f32" || p.type === "f64");
  const x0 = firstFloat >= 0 ? (args[firstFloat] as number) : undefined;
  const zeroInput = x0 === 0;
  if (got === 0 && want === 0 && ("exact" in a || zeroInput) && Object.is(got, -0) !== Object.is(want, -0))
    return { ok: false, ulps, why: `sign of zero: ${Object.is(got, -0) ? "-0" : "+0"}, want ${Object.is(want, -0) ? "-0" : "+0"}` };
  if ("exact" in a) return ulps === 0 ? { ok: true, ulps } : { ok: false, ulps, why: `${got}, want ${want} (exact)` };
  // ±Inf and the overflow threshold: an infinite reference must be met exactly unless the bound is in ulps.
  const range = a.ranges.find((r) => {
    if (r.aboveOrder !== undefined) return Math.abs(x0 ?? NaN) > r.aboveOrder * Math.abs(args[0] as number);
    if (!r.domain) return true;
    const index = r.param ? fn.params.findIndex((p) => p.name === r.param) : firstFloat;
    let v = args[index] as number;
    if (r.abs) v = Math.abs(v);
    return v >= r.domain[0] && v <= r.domain[1];
  })!;
  const b = range.bound;
  if ("unbounded" in b) return { ok: true, ulps };
  if ("absolute" in b) {
    if (!Number.isFinite(want)) return got === want ? { ok: true, ulps } : { ok: false, ulps, why: `${got}, want ${want}` };
    const err = Math.abs(got - want);
    const allowed = b.absolute + ulpOf(want, type) / 2;
    return err <= allowed ? { ok: true, ulps, absError: err } : { ok: false, ulps, absError: err, why: `${got}, want ${want}: |error| ${err} > ${b.absolute}` };
  }
  const allowed = b.ulpPerOrder
    ? Math.ceil(b.ulp + b.ulpPerOrder * Math.abs(args[0] as number))
    : b.ulp + (b.ulpPerAbsX ? Math.floor(Math.abs(b.ulpPerAbsX * (x0 ?? 0))) : 0);
  return ulps <= allowed ? { ok: true, ulps } : { ok: false, ulps, why: `${got}, want ${want}: ${ulps} ulp > ${allowed}` };
}

/**
 * Documented exceptions: functions whose implementation measured past CUDA's bound on some fixture, with
 * the largest ulp distance accepted (each listed in docs/libdevice.md). Keyed by backend.
 */
export const EXCEPTIONS: Record<"simulator" | "emulation", Record<string, { maxUlp: number; why: string }>> = {
  simulator: {
    y0: { maxUlp: 32, why: "@stdlib bessely0 near its zeros below 8 (0.894, 3.958, 7.086): CUDA states 7 ulp for |x| < 8" },
    y1: { maxUlp: 32, why: "@stdlib bessely1 near its zeros below 8 (2.197, 5.430): CUDA states 7 ulp for |x| < 8" },
  },
  emulation: {
    j0: { maxUlp: 25, why: "glibc's j0 near its zero 2.405 (CUDA states 7 ulp for |x| < 8)" },
    j1: { maxUlp: 10, why: "glibc's j1 near its zeros 3.832, 7.016 (CUDA states 7 ulp for |x| < 8)" },
    y0: { maxUlp: 17, why: "glibc's y0 near its zero 3.958 (CUDA states 7 ulp for |x| < 8)" },
    y1: { maxUlp: 21, why: "glibc's y1 near its zero 2.197 (CUDA states 7 ulp for |x| < 8)" },
  },
};

export function formatArgs(args: Value[]): string {
  return args.map((a) => (typeof a === "bigint" ? `${a}n` : Object.is(a, -0) ? "-0" : String(a))).join(", ");
}

/** Per function: the largest ulp distance measured (integers: 0 when all match) and the failures. */
export interface FunctionResult {
  /** Over the cases whose bound is in ulps (or exact). */
  maxUlp: number;
  /** Over the cases whose bound is absolute. */
  maxAbs?: number;
  cases: number;
  failures: string[];
}
export function writeResults(file: string, results: Map<string, FunctionResult>): void {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  const out: Record<string, { maxUlp: number | null; maxAbs?: number; cases: number; failures: number }> = {};
  for (const [name, r] of [...results].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    out[name] = { maxUlp: Number.isFinite(r.maxUlp) ? r.maxUlp : null, ...(r.maxAbs !== undefined ? { maxAbs: Number(r.maxAbs.toPrecision(3)) } : {}), cases: r.cases, failures: r.failures.length };
  fs.writeFileSync(path.join(RESULTS_DIR, file), JSON.stringify(out, null, 1) + "\n");
}
