/**
 * The intrinsic registry: every record (record.ts) by IR name and by the path kernels call it with, and
 * everything derived from them — the names the front end knows, the effect sets of the checker and the
 * simulator, the lane-dependent intrinsics of the divergence rule, the hover docs. Adding an intrinsic is
 * adding a record to one of the family files; nothing else lists intrinsics (test: intrinsics/index.test.ts).
 */
import { BARRIER_RECORDS } from "./barriers";
import { BIT_RECORDS } from "./bits";
import { COMPLEX_RECORDS } from "./complex";
import { LIBDEVICE_RECORDS } from "./libdevice";
import { MATH_RECORDS } from "./math";
import type { IntrinsicDoc, IntrinsicEffect, IntrinsicRecord } from "./record";
import { WARP_RECORDS } from "./warp";

export { libdeviceName, LIBDEVICE_BY_NAME, accuracyText } from "./libdevice";
export type { CudaCallContext, IntrinsicDoc, IntrinsicEffect, IntrinsicParam, IntrinsicRecord, IntrinsicSignature, IntrinsicUniformity, JsCallContext, ParamRule, ResultRule } from "./record";

/** Every record, family by family. */
export const INTRINSIC_RECORDS: readonly IntrinsicRecord[] = [...MATH_RECORDS, ...BIT_RECORDS, ...BARRIER_RECORDS, ...WARP_RECORDS, ...COMPLEX_RECORDS, ...LIBDEVICE_RECORDS];

function byName(records: readonly IntrinsicRecord[]): ReadonlyMap<string, IntrinsicRecord> {
  const map = new Map<string, IntrinsicRecord>();
  for (const r of records) {
    if (map.has(r.name)) throw new Error(`CudaScript: two intrinsic records named '${r.name}'`);
    map.set(r.name, r);
  }
  return map;
}

function byPath(records: readonly IntrinsicRecord[]): ReadonlyMap<string, IntrinsicRecord> {
  const map = new Map<string, IntrinsicRecord>();
  for (const r of records)
    for (const p of r.paths) {
      if (map.has(p)) throw new Error(`CudaScript: two intrinsic records for '${p}'`);
      map.set(p, r);
    }
  return map;
}

/** IR name → record. */
export const INTRINSICS: ReadonlyMap<string, IntrinsicRecord> = byName(INTRINSIC_RECORDS);

/** Source path ("cuda.popc", "Math.sqrt") → record. */
export const INTRINSIC_PATHS: ReadonlyMap<string, IntrinsicRecord> = byPath(INTRINSIC_RECORDS);

/** The record of an IR intrinsic name; throws for a name no record has (a compiler bug). */
export function intrinsicRecord(name: string): IntrinsicRecord {
  const r = INTRINSICS.get(name);
  if (!r) throw new Error(`CudaScript: no intrinsic record for '${name}'`);
  return r;
}

/** The record kernels call as `cuda.<path>`, if any. */
export function cudaIntrinsic(path: string): IntrinsicRecord | undefined {
  return INTRINSIC_PATHS.get(`cuda.${path}`);
}

/** The record kernels call as `Math.<name>`, if any. */
export function mathIntrinsic(name: string): IntrinsicRecord | undefined {
  return INTRINSIC_PATHS.get(`Math.${name}`);
}

const namesWith = (effect: IntrinsicEffect): ReadonlySet<string> => new Set(INTRINSIC_RECORDS.filter((r) => r.effect === effect).map((r) => r.name));

/** The intrinsics of each effect kind. */
export const BARRIER_INTRINSICS = namesWith("barrier");
export const WARP_INTRINSICS = namesWith("warp");
export const FENCE_INTRINSICS = namesWith("fence");
export const GRID_INTRINSICS = namesWith("grid");
/** Every intrinsic that synchronises threads (barrier, warp, grid): the simulator splits kernels at them. */
export const SYNC_INTRINSICS: ReadonlySet<string> = new Set([...BARRIER_INTRINSICS, ...WARP_INTRINSICS, ...GRID_INTRINSICS]);
/** Intrinsics whose value differs between the lanes of a warp with uniform arguments. */
export const LANE_DEPENDENT_INTRINSICS: ReadonlySet<string> = new Set(INTRINSIC_RECORDS.filter((r) => r.uniformity === "lane").map((r) => r.name));
/** Intrinsics whose value is the same in every thread of the block whatever the arguments. */
export const BLOCK_UNIFORM_INTRINSICS: ReadonlySet<string> = new Set(INTRINSIC_RECORDS.filter((r) => r.uniformity === "block" && r.signatures?.[0]?.result !== "void").map((r) => r.name));

/** Every `cuda.<path>` (without "cuda.") a record answers. */
export const CUDA_INTRINSIC_PATHS: readonly string[] = INTRINSIC_RECORDS.flatMap((r) => r.paths.filter((p) => p.startsWith("cuda.")).map((p) => p.slice("cuda.".length)));

/** Every `Math.<name>` (without "Math.") a record answers. */
export const MATH_INTRINSIC_NAMES: readonly string[] = INTRINSIC_RECORDS.flatMap((r) => r.paths.filter((p) => p.startsWith("Math.")).map((p) => p.slice("Math.".length)));

/** The hover docs of each path: the record's, or its path's own. */
export function intrinsicDocs(): ReadonlyMap<string, { readonly record: IntrinsicRecord; readonly doc: IntrinsicDoc }> {
  const docs = new Map<string, { record: IntrinsicRecord; doc: IntrinsicDoc }>();
  for (const r of INTRINSIC_RECORDS) for (const p of r.paths) docs.set(p, { record: r, doc: r.pathDocs?.[p] ?? r.doc });
  return docs;
}
