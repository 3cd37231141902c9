/**
 * `Run Kernel` (VS Code) and the debug adapter's `{ program, kernel }` launch: from a kernel the checker
 * listed (the language server's `cudascript/kernels`, or the adapter's own listing: name, IR-typed
 * parameters, export name and the text of its JSDoc `@run` tag), parses that tag and writes the small host
 * program that builds the arguments, launches the kernel and reports the arrays. Which kernels a file has
 * is the checker's business, never this file's: no imports at all (the client bundles it; nothing here
 * loads the compiler), so it is unit-tested with Node's test runner.
 *
 *   /** @run grid=4096 block=256 args=[scalar(2.5), random(1<<20, f32), random(1<<20, f32), zeros(1<<20, f32)] *\/
 *   export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => { … });
 *
 * Generators: `random(n | [rows, cols], dtype?)`, `zeros(shape, dtype?)`, `range(n, dtype?)`, `scalar(v)`
 * (a bare number is a scalar too). Without a dtype an array generator takes the kernel parameter's dtype.
 * An N-D shape for a flat typed-array parameter (`zeros([192, 256], i32)` for an Int32Array) passes the flat
 * array and makes the results panel show it as an image.
 * Expressions inside (`1<<20`, `Math.ceil(N / 256)`) are copied into the generated TypeScript as written.
 */

export const DTYPES = ["f32", "f64", "i8", "u8", "i16", "u16", "i32", "u32", "bool"] as const;
export type DTypeName = (typeof DTYPES)[number];

/** The request that lists a document's kernels (server/src/protocol.ts `KernelsRequest`). */
export const KERNELS_REQUEST = "cudascript/kernels";

/** LSP positions: 0-based line, UTF-16 character. */
export interface LspRange {
  readonly start: { readonly line: number; readonly character: number };
  readonly end: { readonly line: number; readonly character: number };
}

/** A kernel parameter as the checker typed it (server/src/protocol.ts `KernelParameter`). */
export interface KernelParam {
  readonly name: string;
  /** `scalar` (f32, i32 …), `array` (a typed array or Array1D: rank 1) or `ndarray` (Array2D/Array3D). */
  readonly kind: "scalar" | "array" | "ndarray";
  readonly dtype: DTypeName;
  readonly rank: number;
  /** The annotation as written. */
  readonly type: string;
}

/** A kernel as the language server lists it (server/src/protocol.ts `KernelListing`). */
export interface KernelInfo {
  readonly name: string;
  /** The name the module exports it under; undefined when it is not exported. */
  readonly exportedAs?: string;
  /** The `const NAME = cuda.jit(…)` statement. */
  readonly range: LspRange;
  readonly nameRange: LspRange;
  readonly params: readonly KernelParam[];
  /** The JSDoc comment right above the declaration, if any. */
  readonly docRange?: LspRange;
  /** The `@run` tag's text (`grid=… block=… args=[…]`), if it has one. */
  readonly run?: string;
}

export interface Generator {
  readonly kind: "random" | "zeros" | "range" | "scalar";
  /** TypeScript expression of the length (1-D) or the dims (N-D), as written. */
  readonly shape?: string[];
  readonly dtype?: DTypeName;
  /** scalar: the value expression. */
  readonly value?: string;
  readonly text: string;
}

export interface RunSpec {
  readonly grid: string;
  readonly block: string;
  readonly sharedMem?: string;
  readonly args: Generator[];
}

export class RunTagError extends Error {}

const isDType = (s: string): s is DTypeName => (DTYPES as readonly string[]).includes(s);

/** Splits at top-level commas (outside (), [], {}, <> and strings). */
export function splitTopLevel(text: string, sep = ","): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      cur += c;
      if (c === "\\") cur += text[++i] ?? "";
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") quote = c;
    else if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (c === "<" && /[A-Za-z0-9_]$/.test(cur.trimEnd()) && /^[A-Za-z]/.test(text.slice(i + 1))) depth++;
    else if (c === ">" && depth > 0 && text[i - 1] !== "=" && text[i + 1] !== ">" && text[i - 1] !== ">" && /[A-Za-z0-9_\]]$/.test(cur)) depth--;
    if (c === sep && depth === 0) {
      out.push(cur.trim());
      cur = "";
    } else cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** Index just past the bracket that closes the one at `open`, or -1. */
function matchBracket(text: string, open: number): number {
  const pairs: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
  const stack: string[] = [];
  let quote: string | undefined;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === "\\") i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'" || c === "`") quote = c;
    else if (pairs[c]) stack.push(pairs[c]!);
    else if (c === ")" || c === "]" || c === "}") {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

/** Parses `grid=… block=… args=[…] sharedMem=…`. */
export function parseRunTag(text: string): RunSpec {
  const fields = new Map<string, string>();
  let i = 0;
  const s = text.trim();
  while (i < s.length) {
    while (s[i] === " " || s[i] === ",") i++;
    if (i >= s.length) break;
    const key = /^([A-Za-z]+)\s*=\s*/.exec(s.slice(i));
    if (!key) throw new RunTagError(`cannot read '${s.slice(i)}' in @run: expected key=value (grid=…, block=…, args=[…])`);
    i += key[0].length;
    let end: number;
    if (s[i] === "[" || s[i] === "(") {
      end = matchBracket(s, i);
      if (end < 0) throw new RunTagError(`unbalanced brackets after ${key[1]}= in @run`);
      // allow an expression continuing after a bracket: `grid=(N+255)>>8`
      while (end < s.length && s[end] !== " ") {
        const next = s[end] === "(" || s[end] === "[" ? matchBracket(s, end) : end + 1;
        end = next < 0 ? s.length : next;
      }
    } else {
      end = i;
      while (end < s.length && s[end] !== " ") {
        if (s[end] === "(" || s[end] === "[") {
          const close = matchBracket(s, end);
          end = close < 0 ? s.length : close;
        } else end++;
      }
    }
    fields.set(key[1]!.toLowerCase(), s.slice(i, end).trim());
    i = end;
  }
  const known = new Set(["grid", "block", "args", "sharedmem"]);
  for (const k of fields.keys()) if (!known.has(k)) throw new RunTagError(`unknown @run field '${k}' (use grid=, block=, args=, sharedMem=)`);
  const grid = fields.get("grid");
  const block = fields.get("block");
  if (!grid) throw new RunTagError("@run needs grid=… (a number or [x, y])");
  if (!block) throw new RunTagError("@run needs block=… (a number or [x, y])");
  const argsText = fields.get("args") ?? "[]";
  if (!argsText.startsWith("[") || !argsText.endsWith("]")) throw new RunTagError("@run args must be a list: args=[…]");
  const args = splitTopLevel(argsText.slice(1, -1)).map(parseGenerator);
  return { grid: dim(grid), block: dim(block), sharedMem: fields.get("sharedmem"), args };
}

/** `(64, 48)` is accepted for `[64, 48]`. */
function dim(text: string): string {
  const t = text.trim();
  if (t.startsWith("(") && matchBracket(t, 0) === t.length && splitTopLevel(t.slice(1, -1)).length > 1) return `[${t.slice(1, -1)}]`;
  return t;
}

export function parseGenerator(text: string): Generator {
  const t = text.trim();
  if (/^[-+]?(\d|\.\d)/.test(t) || /^(true|false)$/.test(t)) return { kind: "scalar", value: t, text: t };
  const m = /^([A-Za-z]+)\s*\(([\s\S]*)\)$/.exec(t);
  if (!m) throw new RunTagError(`cannot read argument '${t}': use random(n, f32), zeros(n, i32), range(n), scalar(2.5)`);
  const fn = m[1]!;
  const parts = splitTopLevel(m[2]!);
  if (fn === "scalar") {
    if (parts.length !== 1) throw new RunTagError(`scalar(v) takes one value: '${t}'`);
    return { kind: "scalar", value: parts[0], text: t };
  }
  if (fn !== "random" && fn !== "zeros" && fn !== "range") {
    throw new RunTagError(`unknown generator '${fn}' in '${t}': use random(n, dtype), zeros(n, dtype), range(n), scalar(v)`);
  }
  if (parts.length < 1 || parts.length > 2) throw new RunTagError(`${fn}(shape, dtype?) takes one or two arguments: '${t}'`);
  const shapeText = parts[0]!;
  const shape = shapeText.startsWith("[") && matchBracket(shapeText, 0) === shapeText.length ? splitTopLevel(shapeText.slice(1, -1)) : [shapeText];
  if (shape.length < 1 || shape.length > 3) throw new RunTagError(`shape of '${t}' must have 1 to 3 dimensions`);
  if (fn === "range" && shape.length !== 1) throw new RunTagError(`range(n) is 1-D: '${t}'`);
  let dtype: DTypeName | undefined;
  if (parts[1] !== undefined) {
    const d = parts[1].trim();
    if (!isDType(d)) throw new RunTagError(`unknown dtype '${d}' in '${t}' (use ${DTYPES.join(", ")})`);
    dtype = d;
  }
  return { kind: fn, shape, dtype, text: t };
}

/** The text to suggest when a kernel has no `@run` tag, built from its parameters. */
export function suggestRunTag(kernel: KernelInfo): string {
  const ndims = kernel.params.reduce((m, p) => Math.max(m, p.kind === "ndarray" ? p.rank : 1), 1);
  const args = kernel.params.map((p) => {
    const dt = p.dtype;
    if (p.kind === "scalar") return p.dtype === "bool" ? "scalar(true)" : p.dtype.startsWith("f") ? "scalar(1.5)" : "scalar(1024)";
    if (p.kind === "ndarray") return p.rank === 2 ? `zeros([64, 64], ${dt})` : `zeros([16, 16, 16], ${dt})`;
    return `random(1<<20, ${dt})`;
  });
  const launch = ndims >= 2 ? "grid=[4, 4] block=[16, 16]" : "grid=4096 block=256";
  return `/** @run ${launch} args=[${args.join(", ")}] */`;
}

export interface HostProgramOptions {
  /** Import specifier of the kernel's module, relative to the generated file (`../src/saxpy`). */
  readonly importPath: string;
  /** For messages: the kernel's file as the user sees it. */
  readonly displayPath: string;
  /** Seed of `random(…)`. */
  readonly seed?: number;
}

/** Checks the spec against the kernel's parameters; throws RunTagError with a clear message. */
export function checkSpec(kernel: KernelInfo, spec: RunSpec): void {
  if (kernel.params.length && spec.args.length !== kernel.params.length) {
    throw new RunTagError(
      `@run of '${kernel.name}' gives ${spec.args.length} argument${spec.args.length === 1 ? "" : "s"}, the kernel takes ${kernel.params.length} (${kernel.params.map((p) => p.name).join(", ")})`,
    );
  }
  spec.args.forEach((g, i) => {
    const p = kernel.params[i];
    if (!p) return;
    if (p.kind === "scalar" && g.kind !== "scalar") throw new RunTagError(`argument ${i + 1} ('${p.name}: ${p.type}') is a scalar: use scalar(v), not ${g.text}`);
    if (p.kind !== "scalar" && g.kind === "scalar") throw new RunTagError(`argument ${i + 1} ('${p.name}: ${p.type}') is an array: use random(n), zeros(n) or range(n), not ${g.text}`);
    if (p.kind === "ndarray" && g.shape && g.shape.length !== p.rank) throw new RunTagError(`argument ${i + 1} ('${p.name}: ${p.type}') has ${p.rank} dimensions but ${g.text} has ${g.shape.length}`);
    if (p.kind === "array" && g.dtype && p.dtype && g.dtype !== p.dtype) throw new RunTagError(`argument ${i + 1} ('${p.name}: ${p.type}') holds ${p.dtype}, not ${g.dtype} (${g.text})`);
  });
}

/** The host program Run Kernel runs: builds the arguments, launches once, reports every array argument. */
export function generateHostProgram(kernel: KernelInfo, spec: RunSpec, options: HostProgramOptions): string {
  if (kernel.exportedAs === undefined) {
    throw new RunTagError(`export the kernel to run it on its own (export const ${kernel.name} = cuda.jit(…)): the generated host program imports it`);
  }
  checkSpec(kernel, spec);
  const seed = options.seed ?? 42;
  const used = new Set<string>();
  const lines: string[] = [];
  const argExprs: string[] = [];
  const reports: string[] = [];
  spec.args.forEach((g, i) => {
    const p = kernel.params[i];
    const name = p?.name ?? `arg${i}`;
    const v = `arg${i}_${name.replace(/[^\w$]/g, "_")}`;
    if (g.kind === "scalar") {
      lines.push(`const ${v} = ${g.value};`);
      argExprs.push(v);
      return;
    }
    const dtype = g.dtype ?? p?.dtype ?? "f32";
    used.add(dtype);
    const dims = g.shape!;
    const shape = `[${dims.map((d) => `(${d})`).join(", ")}]`;
    const fill = g.kind === "random" ? "fillRandom" : g.kind === "range" ? "fillRange" : "fillZeros";
    lines.push(`const ${v} = ${fill}(alloc(${shape}, ${dtype}));`);
    // A flat typed-array parameter gets the flat data; an N-D shape then only says how to display it.
    if (p?.kind === "ndarray") {
      argExprs.push(`cuda.ndarray(${v}, ${shape} as [${dims.map(() => "number").join(", ")}])`);
    } else argExprs.push(v);
    reports.push(`[${JSON.stringify(name)}, ${JSON.stringify(dtype)}, ${shape}, ${v}],`);
  });
  const dtypes = [...used].sort();
  const imports = ["cuda", ...dtypes].join(", ");
  const launchOpts = spec.sharedMem ? `, { sharedMem: ${spec.sharedMem} }` : "";
  return [
    `// Generated by the CudaScript extension (Run Kernel) for '${kernel.name}' in ${options.displayPath}.`,
    `// Arguments from its @run tag: ${spec.args.map((a) => a.text).join(", ")}. Safe to delete.`,
    `/* eslint-disable */`,
    `// @ts-nocheck`,
    // report() publishes arrays to the results panel (no-op outside a run from the editor)
    `import { ${imports}, report } from "cudascript";`,
    `import { ${kernel.exportedAs === kernel.name ? kernel.name : `${kernel.exportedAs} as ${kernel.name}`} } from ${JSON.stringify(options.importPath)};`,
    ``,
    `type Store = { length: number; [i: number]: number };`,
    `function alloc(shape: number[], dtype: { arrayType: new (n: number) => Store }): Store {`,
    `  const n = shape.reduce((a, b) => a * b, 1);`,
    `  if (!Number.isInteger(n) || n < 0) throw new Error("@run: bad array size " + JSON.stringify(shape));`,
    `  const a = new dtype.arrayType(n);`,
    `  return a;`,
    `}`,
    `let seed = ${seed >>> 0};`,
    `function next(): number {`,
    `  // mulberry32: the same inputs on every run`,
    `  seed = (seed + 0x6d2b79f5) | 0;`,
    `  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);`,
    `  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;`,
    `  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;`,
    `}`,
    `const isFloat = (a: Store) => a instanceof Float32Array || a instanceof Float64Array;`,
    `function fillRandom(a: Store): Store { for (let i = 0; i < a.length; i++) a[i] = isFloat(a) ? next() : Math.floor(next() * 100); return a; }`,
    `function fillRange(a: Store): Store { for (let i = 0; i < a.length; i++) a[i] = i; return a; }`,
    `function fillZeros(a: Store): Store { return a; }`,
    ``,
    ...lines,
    `const arrays: [string, string, number[], Store][] = [`,
    ...reports.map((r) => `  ${r}`),
    `];`,
    `const before = arrays.map((a) => Array.from(a[3]));`,
    `${kernel.name}.launch(${spec.grid}, ${spec.block}${launchOpts})(${argExprs.join(", ")});`,
    `// outputs (arrays the kernel changed) first, then the inputs`,
    `const changed = arrays.map((a, i) => { const d = a[3], b = before[i]; for (let k = 0; k < d.length; k++) if (d[k] !== b[k] && !(d[k] !== d[k] && b[k] !== b[k])) return true; return false; });`,
    `for (const pass of [true, false])`,
    `  arrays.forEach(([name, , shape, data], i) => { if (changed[i] === pass) report(pass ? name : name + " (unchanged)", data, { shape }); });`,
    `console.log(${JSON.stringify(`ran ${kernel.name} with grid=`)} + JSON.stringify(${spec.grid}) + " block=" + JSON.stringify(${spec.block}));`,
    ``,
  ].join("\n");
}
