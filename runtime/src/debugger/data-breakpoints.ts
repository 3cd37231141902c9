/**
 * Data breakpoints: stop when a thread writes a watched element of a shared or global array. The
 * stepping backend calls `$S.watch` after every statement that stores into an array or updates one
 * atomically, only while one is set (`$S.dw`); the watch compares each watched element with the value
 * it last saw, so the statement that changed it — in whichever thread — is the stop. Cost when none is
 * set: one flag load per storing statement.
 */
import { CudaScriptError } from "../errors";
import { halfTables } from "../simulator/f16-table";
import { formatValue, type Dim3 } from "./expressions";

export interface DataBreakpointInfo {
  /** The id to pass to setDataBreakpoints; null when the variable cannot be watched (then `description` says why). */
  readonly dataId: string | null;
  readonly description: string;
}

export interface DataBreakpointResult {
  readonly dataId: string;
  readonly verified: boolean;
  readonly message?: string;
}

/** An array as a frame shows it. */
export interface ArrayStorage {
  readonly data: ArrayLike<number | bigint>;
  readonly offset: number;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
}

interface Watch {
  readonly id: string;
  readonly label: string;
  readonly data: ArrayLike<number | bigint>;
  /** The element's index in `data`'s elements (complex: two slots each). */
  readonly k: number;
  readonly dtype: string;
  readonly space: string;
  old: unknown;
}

/** An element's value: f16 decoded, complex as { re, im }, bool as a boolean. */
export function readElement(data: ArrayLike<number | bigint>, k: number, dtype: string): unknown {
  if (dtype === "c64" || dtype === "c128") return { re: data[2 * k], im: data[2 * k + 1] };
  if (dtype === "f16") return halfTables().h2f[data[k] as number];
  if (dtype === "bool") return data[k] !== 0;
  return data[k];
}

function same(a: unknown, b: unknown): boolean {
  if (a && b && typeof a === "object" && typeof b === "object") return Object.is((a as { re: unknown }).re, (b as { re: unknown }).re) && Object.is((a as { im: unknown }).im, (b as { im: unknown }).im);
  return Object.is(a, b);
}

export class DataWatches {
  private readonly known = new Map<string, Watch>();
  private readonly storageIds = new WeakMap<object, number>();
  private nextStorage = 0;
  private active: Watch[] = [];
  /** The last change found by `changed()`: which element, its old and new value. */
  hit: { readonly label: string; readonly old: unknown; readonly value: unknown } | undefined;

  get any(): boolean {
    return this.active.length > 0;
  }

  /** The data id of element `index` of array variable `name` (shared or global memory only). */
  info(name: string, dtype: string, space: string | undefined, a: ArrayStorage, index: readonly number[]): DataBreakpointInfo {
    if (space !== "shared" && space !== "global")
      return { dataId: null, description: `'${name}' is ${space ?? "a"} ${space ? "memory" : "scalar"}: data breakpoints watch an element of a shared or global array` };
    if (index.length !== a.shape.length || !index.every((x, d) => Number.isInteger(x) && x >= 0 && x < a.shape[d]!))
      return { dataId: null, description: `pick one element of '${name}' (shape [${a.shape.join(", ")}]): ${a.shape.length === 1 ? `${name}[3]` : `${name}[0][3]`}` };
    let sid = this.storageIds.get(a.data as object);
    if (sid === undefined) this.storageIds.set(a.data as object, (sid = this.nextStorage++));
    const k = a.offset + index.reduce((s, x, d) => s + x * a.strides[d]!, 0);
    const id = `${sid}:${k}`;
    const label = `${name}${index.map((x) => `[${x}]`).join("")}`;
    if (!this.known.has(id)) this.known.set(id, { id, label, data: a.data, k, dtype, space, old: undefined });
    return { dataId: id, description: `${label} (${space} ${dtype}) is written` };
  }

  /** Replaces the data breakpoints; an unknown id is not set (CSD018 in its message). */
  set(ids: readonly string[]): DataBreakpointResult[] {
    this.active = [];
    return ids.map((id) => {
      const w = this.known.get(id);
      if (!w) return { dataId: id, verified: false, message: new CudaScriptError("CSD018", `no data breakpoint '${id}': ask dataBreakpointInfo for an element of a shared or global array first, while the launch is stopped`).message };
      w.old = readElement(w.data, w.k, w.dtype);
      this.active.push(w);
      return { dataId: id, verified: true };
    });
  }

  /** Remembers the current values (a new block's shared memory is zeroed: that is no thread's write). */
  refresh(): void {
    for (const w of this.active) w.old = readElement(w.data, w.k, w.dtype);
  }

  /** Whether a watched element changed since last seen (the running thread's statement wrote it). */
  changed(): boolean {
    for (const w of this.active) {
      const v = readElement(w.data, w.k, w.dtype);
      if (!same(v, w.old)) {
        this.hit = { label: w.label, old: w.old, value: v };
        w.old = v;
        return true;
      }
    }
    return false;
  }

  /** The stop's description for the last change. */
  describeHit(thread: Dim3): string {
    const h = this.hit!;
    return `${h.label} written by thread (${thread.join(", ")}): ${formatValue(h.old)} → ${formatValue(h.value)}`;
  }
}
