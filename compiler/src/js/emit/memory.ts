/**
 * Memory: element reads and writes with their bounds checks, atomics (with the per-launch choice for
 * privatizable arrays), `cuda.random` draws, array arguments and views passed to device functions, and
 * the sanitizer's shadow checks on shared memory (inline fast paths, `$S.*` slow paths).
 */
import type * as IR from "../../ir/nodes";
import { isComplex, isInt64, type ArrayType, type MemorySpace } from "../../ir/types";
import { index64 } from "../int64";
import { halfChanged, halfRead, halfWrite } from "../f16";
import { randomDrawCall, stateRowCheck } from "../random";
import { sameExpr, visitExpr } from "../../ir/visit";
import { extentThrough, viewOfArgument } from "../../ir/views";
import type { PrivatizableParam } from "../artifact-types";
import { stridesOf, type ArrayInfo } from "./arrays";
import type { EmitContext } from "./context";
import { recordFieldRead, recordFieldTarget, recordFieldWrite, recordNdCallArgs } from "../records";
import { globalAtomic, globalRead, globalWrite, globalWriteCall } from "./sanitize-global";
import { profileAccess } from "./profile";
import { writtenMark } from "./shadow-values";

/** The memory accesses of one function. */
export class MemoryEmitter {
  /** Kernel array parameters that may be privatized in a launch, and the helpers chosen per launch for them. */
  private readonly privParams = new Map<IR.Var, PrivatizableParam>();
  /** The per-launch choices of those helpers: lines of the kernel's setup. */
  readonly privLines: string[] = [];
  private readonly privHelpers = new Map<string, string>();
  /** Sanitized reads of the element the enclosing statement then writes (`a[i] += …`): no read record needed. */
  private readonly rmwReads = new Set<IR.IndexExpr>();
  /** The access whose indices are being emitted: a `viewIndex` among them reports its out-of-bounds as this access. */
  private viewAccess: { kind: "read" | "write" | "atomic"; space: MemorySpace; op?: string } = { kind: "read", space: "global" };
  /** Index temporaries `$i0, $j0, $k0, …` (nested accesses use deeper ones): the deepest depth used, and the current depth. */
  private tempMax = -1;
  private depth = 0;
  /** Sanitizer flat-index temporaries $f0..: how many depths use one. */
  private flatTemps = 0;

  constructor(private readonly cx: EmitContext) {
    if (cx.mode !== "device") for (const p of cx.me.atomicParams.get(cx.fn.id)?.privatize ?? []) this.privParams.set(cx.fn.params[p.param]!, p);
  }

  private temp(dim: number): string {
    this.tempMax = Math.max(this.tempMax, this.depth);
    return `$${"ijk"[dim]}${this.depth}`;
  }
  /** The `let` of the sanitizer's flat-index temporaries this function uses, if any. */
  flatTempsDecl(): string | undefined {
    return this.flatTemps > 0 ? `let ${Array.from({ length: this.flatTemps + 1 }, (_, d) => `$f${d} = 0`).join(", ")};` : undefined;
  }
  /** The `let` of the index temporaries this function uses, if any. */
  indexTempsDecl(): string | undefined {
    if (this.tempMax < 0) return undefined;
    const ts: string[] = [];
    for (let d = 0; d <= this.tempMax; d++) ts.push(`$i${d} = 0`, `$j${d} = 0`, `$k${d} = 0`);
    return `let ${ts.join(", ")};`;
  }

  private isSimple(x: string): boolean {
    return /^[A-Za-z_$][\w$]*$/.test(x);
  }

  /** Bounds checks for an element access; returns the checks (comma-separated) and the flat index. */
  private addr(a: ArrayInfo, indices: readonly IR.Expr[], site: number): { pre: string[]; flat: string } {
    const pre: string[] = [];
    const idx: string[] = [];
    this.depth++;
    const myDepth = this.depth;
    const proven = this.cx.proven?.has(indices) === true;
    indices.forEach((ie, k) => {
      const dim = a.dims[k] ?? "1";
      if (ie.k === "const" && /^\d+$/.test(dim)) {
        const c = Number(ie.value);
        if (c >= 0 && c < Number(dim)) {
          idx.push(String(c));
          return;
        }
      }
      const x = this.cx.undef.check(ie, this.cx.emit.ex(ie), "index", ie.span);
      if (proven) {
        idx.push(x);
        return;
      }
      if (ie.type.kind === "scalar" && isInt64(ie.type.dtype)) {
        // A 64-bit index (a bigint): a number for the typed array, both ends compared.
        this.depth = myDepth;
        const t = this.temp(k);
        pre.push(index64(t, x, dim, `$oob(${site}, ${t}, ${dim}, ${k})`));
        idx.push(t);
        return;
      }
      if (this.isSimple(x) || /^\(?-?\d+\)?$/.test(x)) {
        pre.push(`(${x} >>> 0 < ${dim} || $oob(${site}, ${x}, ${dim}, ${k}))`);
        idx.push(x);
      } else {
        this.depth = myDepth;
        const t = this.temp(k);
        pre.push(`((${t} = ${x}) >>> 0 < ${dim} || $oob(${site}, ${t}, ${dim}, ${k}))`);
        idx.push(t);
      }
    });
    this.depth = myDepth - 1;
    let flat = idx[0]!;
    if (a.strides) {
      // i * s0 + j * s1 + k * s2 (a stride of "1", a device function's contiguous case, costs nothing).
      const terms = idx.map((x, k) => (a.strides![k] === "1" ? x : `${x} * ${a.strides![k]}`));
      flat = terms.join(" + ");
    } else if (idx.length === 2) flat = `${idx[0]} * ${a.dims[1]} + ${idx[1]}`;
    else if (idx.length === 3) flat = `(${idx[0]} * ${a.dims[1]} + ${idx[1]}) * ${a.dims[2]} + ${idx[2]}`;
    if (a.offset) flat = `${a.offset} + ${idx.length > 1 || a.strides ? `(${flat})` : flat}`;
    return { pre, flat };
  }

  /** Whether the sanitizer's inline fast paths may run in this kernel (it has shared arrays of its own). */
  usesSharedSan(): boolean {
    return this.cx.san && this.cx.mode !== "device" && [...this.cx.arrays.values()].some((a) => typeof a.shId === "number");
  }

  /** A multi-dimensional flat index computed once into a temporary (pushed to `pre`) for the sanitizer's repeated uses. */
  private flatTemp(flat: string, pre: string[]): string {
    if (this.isSimple(flat) || /^\d+$/.test(flat)) return flat;
    this.depth++;
    const t = this.temp(0).replace(/^\$i/, "$f");
    this.depth--;
    this.flatTemps = Math.max(this.flatTemps, this.depth + 1);
    pre.push(`(${t} = ${flat})`);
    return t;
  }

  private sanCall(a: ArrayInfo, kind: "r" | "w" | "a", flat: string, site: number, extra = ""): string | undefined {
    if (!this.cx.san || a.shId === undefined) return undefined;
    const S = this.cx.mode === "device" ? "$san" : "$S";
    if (a.shId === "param") return `${S}.${kind}p(${a.data}, ${flat}, $t, ${site}${extra})`;
    return `${S}.${kind}(${a.shId}, ${flat}, $t, ${site}${extra})`;
  }

  /** A field of a record array's element: bounds-checked against the record count, read through the field's view. */
  private recordAccess(e: IR.IndexExpr, value?: IR.Expr): string {
    const a = this.cx.arrayInfo(e.array.v);
    this.cx.noteArray(e.array.v);
    const site = this.cx.site(value ? "write" : "read", e.span, { array: a.name, space: a.space });
    const { pre, flat } = this.addr(a, e.indices, site);
    if (!value) {
      const v = recordFieldRead(a.data, a.record!, e.field!, flat);
      return pre.length ? `(${pre.join(", ")}, ${v})` : v;
    }
    this.depth += 2;
    const v = this.cx.emit.ex(value);
    this.depth -= 2;
    return `${pre.length ? `${pre.join(", ")}; ` : ""}${recordFieldWrite(a.data, a.record!, e.field!, flat, v)};`;
  }

  load(e: IR.IndexExpr): string {
    if (e.field) return this.recordAccess(e);
    const a = this.cx.arrayInfo(e.array.v);
    this.cx.noteArray(e.array.v);
    const site = this.cx.site("read", e.span, { array: a.name, space: a.space });
    const outerAccess = this.viewAccess;
    this.viewAccess = { kind: "read", space: a.space };
    const { pre, flat: flat0 } = this.addr(a, e.indices, site);
    this.viewAccess = outerAccess;
    const flat = globalRead(this.cx, a, flat0, site, pre, (f, p) => this.flatTemp(f, p)) ?? flat0;
    const counted = profileAccess(this.cx, "read", a, flat, e);
    if (counted) pre.push(counted);
    if (this.cx.san && typeof a.shId === "number" && this.cx.mode !== "device") {
      // Inline fast path of the sanitizer's read check (see Sanitizer in the runtime). Writer: this
      // thread in this epoch, or another before the last barrier (and in this block). Reader record:
      // already this thread or several in this epoch; another single reader in this epoch → several;
      // no reader since the last barrier → this thread; anything else → the slow path.
      const id = a.shId;
      if (this.cx.seg) this.cx.seg.sanFast = true;
      const x = this.flatTemp(flat, pre);
      pre.push(`((($sw = $WP${id}[${x}]) < $BS ? $sw >= $EB : $sw >= $M1 && $sw < $M2) || $S.rs(${id}, ${x}, $t, ${site}))`);
      // The write of the same element that follows in this statement replaces the reader record anyway.
      if (!this.rmwReads.has(e))
        pre.push(`(($sr = $RP${id}[${x}]) >= $E ? ($sr < $E1 || ($sr >= $M2 && $sr < $M3) || (($RP${id}[${x}] = $E + ${site}), true)) : $sr < $BS ? (($RP${id}[${x}] = $M2 + ${site}), true) : $S.rr(${id}, ${x}, $t, ${site}))`);
      // Undefined-value tracking (shadow-values.ts): never written in this block → this read is the
      // origin. `$sw` still holds the element's write record, loaded by the check above.
      // The common case — written in this block, and no undefined value stored into shared memory in it —
      // tests two numbers and leaves the accumulator alone.
      const origin = this.cx.undef.loadOrigin(`($sw < $EB ? ${site + 1} : $ud !== 0 ? $UO${id}[${x}] : 0)`, `($sw >= $EB && $ud === 0)`);
      if (origin) pre.push(origin);
      let v = elementRead(a, x);
      if (a.dtype === "bool") v = `(${v} !== 0)`;
      return `(${pre.join(", ")}, ${v})`;
    } else {
      const s = this.sanCall(a, "r", flat, site);
      if (s) pre.push(s);
      const origin = s && this.cx.undef.loadOrigin(a.shId === "param" ? `$san.uop(${a.data}, ${flat}, ${site})` : `$san.uo(${a.shId}, ${flat}, ${site})`);
      if (origin) pre.push(origin);
    }
    let v = elementRead(a, flat);
    if (a.dtype === "bool") v = `(${v} !== 0)`;
    return pre.length ? `(${pre.join(", ")}, ${v})` : v;
  }

  store(t: IR.IndexExpr, value: IR.Expr): string {
    if (t.field) return this.recordAccess(t, value);
    const a = this.cx.arrayInfo(t.array.v);
    this.cx.noteArray(t.array.v);
    const site = this.cx.site("write", t.span, { array: a.name, space: a.space });
    const outerAccess = this.viewAccess;
    this.viewAccess = { kind: "write", space: a.space };
    const { pre, flat } = this.addr(a, t.indices, site);
    this.viewAccess = outerAccess;
    const counted = profileAccess(this.cx, "write", a, flat, t);
    if (counted) pre.push(counted);
    const rmw = this.cx.san && typeof a.shId === "number" && this.cx.mode !== "device" ? readsOfSameElement(t, value) : [];
    for (const r of rmw) this.rmwReads.add(r);
    this.depth += 2;
    const shared = this.cx.san && a.shId !== undefined;
    // A shared element takes the stored value's shadow; a global store is where an undefined value matters.
    const v = shared ? this.cx.undef.storeValue(this.cx.emit.ex(value)) : a.space === "global" ? this.cx.undef.check(value, this.cx.emit.ex(value), "global store", t.span) : this.cx.emit.ex(value);
    this.depth -= 2;
    for (const r of rmw) this.rmwReads.delete(r);
    const checks = pre.length ? `${pre.join(", ")}; ` : "";
    if (this.cx.san && typeof a.shId === "number" && this.cx.mode !== "device") {
      // Inline fast path of the sanitizer's write check: last written by this thread in this epoch or
      // before the last barrier (or never), and no reader but this thread since the last barrier.
      // Sanitizer.w re-checks everything on the slow path.
      const id = a.shId;
      if (this.cx.seg) this.cx.seg.sanFast = true;
      const idx: string[] = [];
      const x = this.flatTemp(flat, idx);
      const fast = `(($sw = $WP${id}[${x}]) < $BS || ($sw >= $M1 && $sw < $M2)) && (($sr = $RP${id}[${x}]) < $BS || ($sr >= $M2 && $sr < $M3))`;
      // The element's shadow, only where undefined values are around (Sanitizer.UD, mirrored in the
      // local `$ud`): else nothing to do.
      const shadow = this.cx.undef.active ? ` if ($U !== 0 || $ud !== 0) $ud = $S.uw(${id}, ${x}, $U);` : "";
      return `{ ${checks}${idx.length ? `${idx.join(", ")}; ` : ""}const $sv = ${v}; if (${fast}) { $WP${id}[${x}] = $M1 + ${site}; $RP${id}[${x}] = 0; } else $S.w(${id}, ${x}, $t, ${site}, ${elementChanged(a, x)});${shadow} ${elementWrite(a, x, "$sv")}; }`;
    }
    // Under the sanitizer, a global store marks its element written (CSR069's map, shadow-values.ts).
    const mark = a.space === "global" ? writtenMark(this.cx, t.array.v, a.data, flat) : undefined;
    const g = globalWrite(this.cx, a, flat, site, pre, v, (f, p) => this.flatTemp(f, p), (x) => elementWrite(a, x, "$sv"), (x) => elementChanged(a, x));
    if (g) return mark ? `${g} ${mark};` : g;
    if (this.cx.san && a.shId !== undefined) {
      const s = this.sanCall(a, "w", flat, site, `, ${elementChanged(a, flat)}`)!;
      // A device function's array parameter is shared memory or global: the sanitizer tells (uwp).
      const shadow = !this.cx.undef.active ? "" : a.shId === "param" ? ` $san.uwp(${a.data}, ${flat}, $U, ${this.cx.site("use", t.span, { op: "global store" })}, $t);` : ` $san.uw(${a.shId}, ${flat}, $U);`;
      return `{ ${checks}const $sv = ${v}; ${s};${shadow} ${globalWriteCall(this.cx, a, flat, site, elementChanged(a, flat))}${elementWrite(a, flat, "$sv")}; }`;
    }
    return `${checks}${elementWrite(a, flat, v)};${mark ? ` ${mark};` : ""}`;
  }

  atomic(e: IR.AtomicExpr): string {
    const a = this.cx.arrayInfo(e.array.v);
    this.cx.noteArray(e.array.v);
    const site = this.cx.site("atomic", e.span, { array: a.name, space: a.space, op: e.op });
    const outerAccess = this.viewAccess;
    this.viewAccess = { kind: "atomic", space: a.space, op: e.op };
    const { pre, flat } = this.addr(a, e.indices, site);
    this.viewAccess = outerAccess;
    const counted = e.field ? undefined : profileAccess(this.cx, "atomic", a, flat, e, e.op);
    if (counted) pre.push(counted);
    this.depth += 2;
    const exp = e.expected ? this.cx.undef.check(e.expected, this.cx.emit.ex(e.expected), "atomic operand", e.span) : undefined;
    const v = this.cx.undef.check(e.value, this.cx.emit.ex(e.value), "atomic operand", e.span);
    this.depth -= 2;
    const space = a.space === "shared" || a.space === "local" ? "shared" : "global";
    const priv = this.cx.mode !== "device" ? this.privParams.get(e.array.v) : undefined;
    if (e.field) {
      // A record field (js/records.ts): the helper of the field's dtype on the field's view.
      const t = recordFieldTarget(a.data, a.record!, e.field, flat);
      const call = `${this.cx.me.atomicHelper(e.op, e.field.dtype, space)}(${t.data}, ${t.index}, ${exp !== undefined ? `${exp}, ` : ""}${v})`;
      return pre.length ? `(${pre.join(", ")}, ${call})` : call;
    }
    const h = priv ? this.privHelper(e.op, priv, a) : this.cx.me.atomicHelper(e.op, a.dtype, a.shId === "param" ? "global" : space);
    const s = this.sanCall(a, "a", flat, site);
    if (s) pre.push(s);
    const gx = globalAtomic(this.cx, a, flat, site, pre, (f, p) => this.flatTemp(f, p)) ?? flat;
    const mark = a.space === "global" ? writtenMark(this.cx, e.array.v, a.data, flat) : undefined;
    if (mark) pre.push(mark);
    const call = `${h}(${a.data}, ${gx}, ${exp !== undefined ? `${exp}, ` : ""}${v})`;
    return pre.length ? `(${pre.join(", ")}, ${call})` : call;
  }

  /**
   * `cuda.random.<draw>(states, i)` (js/random.ts): row i bounds-checked, the rows checked to be two
   * words, and under the sanitizer a read and a write of both words of the row, as the draw does.
   */
  random(e: IR.RandomExpr): string {
    const a = this.cx.arrayInfo(e.states.v);
    this.cx.noteArray(e.states.v);
    const site = this.cx.site("random", e.span, { array: a.name, space: a.space, op: e.draw });
    // The row index (one index, no strides): the generator reads words 2i and 2i + 1, so a state array
    // must be C-contiguous; the check says so otherwise (CSR033).
    const { pre, flat } = this.addr({ ...a, strides: undefined }, [e.index], site);
    const cols = a.dims[1] ?? "1";
    const strides = a.strides ?? [];
    if (cols !== "2" || strides.length) {
      this.cx.helper("$throw", "function $throw(f) { throw f; }");
      pre.push(stateRowCheck(cols, site, strides));
    }
    for (const kind of ["r", "w"] as const) {
      for (const word of [`2 * ${flat}`, `2 * ${flat} + 1`]) {
        const s = this.sanCall(a, kind, word, site, kind === "w" ? ", true" : "");
        if (s) pre.push(s);
      }
    }
    const call = randomDrawCall(e.draw, a.data, flat);
    return pre.length ? `(${pre.join(", ")}, ${call})` : call;
  }

  /**
   * The atomic helper for a privatizable array, chosen once per launch: a plain read-modify-write when
   * this executor holds a private copy of the array (`L.priv[param]`), the shared-memory one otherwise.
   */
  private privHelper(op: IR.AtomicOp, p: PrivatizableParam, a: ArrayInfo): string {
    const key = `${p.param}:${op}`;
    let name = this.privHelpers.get(key);
    if (!name) {
      name = `${a.data}$at_${op}`;
      const plain = this.cx.me.atomicHelper(op, a.dtype, "shared");
      const shared = this.cx.me.atomicHelper(op, a.dtype, "global");
      this.privLines.push(`const ${name} = L.priv !== undefined && L.priv[${p.param}] === true ? ${plain} : ${shared};`);
      this.privHelpers.set(key, name);
    }
    return name;
  }

  call(e: IR.CallExpr): string {
    const f = this.cx.me.fns.get(e.fn);
    const name = this.cx.me.deviceNames.get(e.fn);
    if (!f || !name) throw new Error(`CudaScript simulator: device function ${e.fn} is missing`);
    const args: string[] = [];
    e.args.forEach((a, i) => {
      const p = f.params[i];
      if (p && p.type.kind === "array") {
        // (data, offset of the first element, one extent per dimension): a whole array or a view.
        if (a.k === "intrinsic" && a.name === "arrayView") {
          args.push(...this.viewArgs(a));
          return;
        }
        if (a.k !== "var") throw new Error("CudaScript simulator: array argument is not a variable");
        const info = this.cx.arrayInfo(a.v);
        this.cx.noteArray(a.v);
        args.push(info.data, info.offset ?? "0");
        // An N-D record array: its bytes' extents and strides, as a kernel receives them (js/records.ts).
        if (info.record && p.type.rank > 1) return void args.push(...recordNdCallArgs(info.dims, stridesOf(info), info.record.layout.size));
        // A record array's extent travels in bytes, as a kernel receives it: the callee counts records (js/records.ts).
        if (info.record) args.push(`${info.data}.length`);
        else for (let d = 0; d < p.type.rank; d++) args.push(info.dims[d] ?? "1");
        args.push(...stridesOf(info).slice(0, p.type.rank));
      } else args.push(this.cx.undef.callArg(f, i, this.cx.emit.ex(a)));
    });
    args.push("$tx", "$ty", "$tz", "$t", ...this.cx.undef.callShadows(f));
    return this.cx.undef.call(f, `${name}(${args.join(", ")})`);
  }

  /**
   * `offset + j` after checking 0 <= j < length, the VIEW's length: an access past the view is an
   * out-of-bounds error of the view even where the base has the element (ir/views.ts).
   */
  viewIndex(e: IR.IntrinsicExpr): string {
    const acc = this.viewAccess;
    const [j, length, offset] = e.args.map((x) => this.cx.emit.ex(x));
    const site = this.cx.site(acc.kind, e.span, { array: e.view?.name, space: acc.space, op: acc.op });
    const vi = this.cx.helper("$vi", "function $vi(j, n, o, s) { return j >>> 0 < n ? o + j : $oob(s, j, n, 0); }");
    return `${vi}(${j}, ${length}, ${offset}, ${site})`;
  }

  /**
   * A view passed to a device function: the base's data, the flat index of its first element, its
   * extents and its strides (the base's, of the dimensions it keeps).
   */
  viewArgs(e: IR.IntrinsicExpr): string[] {
    const view = viewOfArgument(e);
    const a = this.cx.arrayInfo(view.base.v);
    this.cx.noteArray(view.base.v);
    const rank = (e.type as ArrayType).rank;
    let first = "0";
    const pre: string[] = [];
    if (view.lead.length) {
      // The rows taken, bounds-checked against the base's leading dimensions.
      const site = this.cx.site("read", e.span, { array: a.name, space: a.space });
      // addr of the leading indices alone under the base's strides is the row's first element.
      const strides = stridesOf(a);
      const r = this.addr({ ...a, offset: undefined, strides: strides.slice(0, view.lead.length) }, view.lead, site);
      pre.push(...r.pre);
      first = `(${r.flat})`;
    }
    const strides = stridesOf(a);
    const inner = strides[strides.length - 1]!;
    if (view.sub) {
      const sub = inner === "1" ? this.cx.emit.ex(view.sub.offset) : `(${this.cx.emit.ex(view.sub.offset)}) * ${inner}`;
      first = first === "0" ? sub : `${first} + ${sub}`;
    }
    if (a.offset) first = `${a.offset} + ${first}`;
    const offset = pre.length ? `(${pre.join(", ")}, ${first})` : first;
    const dims = Array.from({ length: rank }, (_, d) => this.cx.emit.ex(extentThrough(view, d, e.span)));
    return [a.data, offset, ...dims, ...strides.slice(strides.length - rank)];
  }
}

/** JavaScript reading element `flat` of an array (a complex element is an object of its two parts). */
function elementRead(a: ArrayInfo, flat: string): string {
  if (a.dtype === "f16") return halfRead(a.data, flat);
  return isComplex(a.dtype) ? `rt.cget(${a.data}, ${flat})` : `${a.data}[${flat}]`;
}
function elementWrite(a: ArrayInfo, flat: string, value: string): string {
  if (a.dtype === "f16") return halfWrite(a.data, flat, value);
  // A Float32Array store rounds to f32 exactly as Math.fround does: the outer call only costs time.
  if (a.dtype === "f32") value = withoutOuterFround(value);
  return isComplex(a.dtype) ? `rt.cset(${a.data}, ${flat}, ${value})` : `${a.data}[${flat}] = ${value}`;
}
/** `x` for `Math.fround(x)` when that call is the whole expression; the expression unchanged otherwise. */
export function withoutOuterFround(value: string): string {
  const head = "Math.fround(";
  if (!value.startsWith(head) || !value.endsWith(")")) return value;
  let depth = 0;
  for (let i = head.length - 1; i < value.length; i++) {
    const c = value[i];
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i === value.length - 1 ? value.slice(head.length, -1) : value;
    else if (c === '"' || c === "'" || c === "`") return value; // no string literals in arithmetic: stay safe
  }
  return value;
}
/** Whether storing `$sv` changes element `flat` (for the sanitizer's benign-race rule). */
function elementChanged(a: ArrayInfo, flat: string): string {
  if (a.dtype === "f16") return halfChanged(a.data, flat);
  return isComplex(a.dtype) ? `!rt.${a.dtype}.eq(rt.cget(${a.data}, ${flat}), $sv)` : `${a.data}[${flat}] !== $sv`;
}

/**
 * Reads in `value` of exactly the element `target` names (same array, structurally identical index
 * expressions without side effects), when evaluating `value` has no side effects: between such a read
 * and the write of `target` nothing else happens, so the write (which clears the reader record once its
 * checks pass) makes the read's record unobservable. Used for `a[i] += x` under the sanitizer.
 */
function readsOfSameElement(target: IR.IndexExpr, value: IR.Expr): IR.IndexExpr[] {
  if (!target.indices.every(sideEffectFree)) return [];
  const out: IR.IndexExpr[] = [];
  let impure = false;
  visitExpr(value, (x) => {
    if (x.k === "call" || x.k === "atomic" || x.k === "random") impure = true;
    else if (x.k === "index" && x.array.v === target.array.v && x.indices.length === target.indices.length && x.indices.every((ix, d) => sameExpr(ix, target.indices[d]!))) out.push(x);
  });
  return impure ? [] : out;
}

function sideEffectFree(e: IR.Expr): boolean {
  let ok = true;
  visitExpr(e, (x) => {
    if (x.k === "call" || x.k === "atomic" || x.k === "random" || x.k === "index" || x.k === "intrinsic") ok = false;
  });
  return ok;
}
