/**
 * Host-side checks at `kernel.launch(grid, block, options?)(...args)` sites: constant launch
 * configurations that can never run (CS4001–CS4003, CS4007 over the kernel's launchBounds), argument counts and kinds against the kernel's
 * signature (CS4004, CS4005), dynamic shared memory without a size (CS4006), a kernel called with no launch
 * configuration at all (CS4009).
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import type { Expr, IrFunction, Span } from "../ir/nodes";
import { isComplex } from "../ir/types";
import { forEachRootExpr, visitExpr } from "../ir/visit";
import { ConstantFolder, stripParensAndNonNull } from "../frontend/constants";
import type { ModuleInfo } from "../frontend/module-info";
import type { FrontEnd } from "../frontend/program";
import { checkRecordLaunchArgument } from "./record-launch";

export interface LaunchSite {
  readonly kernel: string;
  readonly kernelId: string;
  readonly span: Span;
  /** Constant block size (product of dims) when known. */
  readonly threadsPerBlock?: number;
  readonly sharedMemBytes?: number;
  /** grid × block threads when both are constants (CS5005 reads it). */
  readonly totalThreads?: number;
  /** Per argument: the array's element count when the site shows it (`new Float32Array(N)`, see arrayLength). */
  readonly argLengths?: readonly (number | undefined)[];
}

export interface LaunchCheckHost {
  readonly front: FrontEnd;
  /** The lowered kernel for a name visible in `module`, if it is a kernel. */
  kernelNamed(module: ModuleInfo, name: string): IrFunction | undefined;
  /** Top-level statements nested too deeply to walk (reported as CS1021). */
  tooDeep?: ReadonlySet<ts.Node>;
  usesDynamicShared(fn: IrFunction): boolean;
}

const MAX_BLOCK = [1024, 1024, 64];
const MAX_GRID = [2147483647, 65535, 65535];

export function checkLaunchSites(host: LaunchCheckHost, module: ModuleInfo): { diagnostics: Diagnostic[]; sites: LaunchSite[] } {
  const sf = module.sourceFile;
  const diagnostics: Diagnostic[] = [];
  const sites: LaunchSite[] = [];
  const span = (n: ts.Node): Span => {
    const start = n.getStart(sf);
    const lc = sf.getLineAndCharacterOfPosition(start);
    return { file: module.file, start, end: n.end, line: lc.line + 1, col: lc.character + 1 };
  };
  const folder = () => new ConstantFolder((name) => host.front.constOf(module, name));
  const kernelDecls = new Set([...module.functions.values()].map((f) => f.call));

  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && kernelDecls.has(n)) return; // kernel bodies are checked by the lowering
    if (host.tooDeep?.has(n)) return; // walking it would run out of stack
    if (ts.isCallExpression(n) && ts.isCallExpression(n.expression)) {
      const inner = n.expression;
      const callee = inner.expression;
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === "launch" && ts.isIdentifier(callee.expression)) {
        const fn = host.kernelNamed(module, callee.expression.text);
        if (fn) checkSite(fn, inner, n);
      }
    }
    // `k(2.5, out)`: a kernel is not a function (Numba: "Kernel launch configuration was not specified").
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && !isShadowed(n.expression)) {
      const fn = host.kernelNamed(module, n.expression.text);
      if (fn) {
        const name = n.expression.text;
        const args = n.arguments.map((a) => a.getText(sf)).join(", ");
        diagnostics.push(
          makeDiagnostic(
            Codes.KernelCalledWithoutLaunch,
            span(n),
            `'${name}' is a kernel: launch it with ${name}.launch(blocks, threadsPerBlock)(${args}), e.g. ${name}.launch(Math.ceil(n / 256), 256)(…) for n threads, or ${name}.forall(n)(${args}), which picks the block size`,
          ),
        );
      }
    }
    ts.forEachChild(n, visit);
  };

  const readDims = (e: ts.Expression | undefined): { dims: number[]; node: ts.Node }[] | undefined => {
    if (!e) return undefined;
    const x = stripParensAndNonNull(e);
    const parts = ts.isArrayLiteralExpression(x) ? [...x.elements] : [x];
    const out: { dims: number[]; node: ts.Node }[] = [];
    for (const p of parts) {
      const v = folder().fold(p);
      if (!v || typeof v.value !== "number") return undefined;
      out.push({ dims: [v.value], node: p });
    }
    return out;
  };

  const checkSite = (fn: IrFunction, launch: ts.CallExpression, full: ts.CallExpression): void => {
    const [gridArg, blockArg, optionsArg] = launch.arguments;
    const where = span(launch);
    let threads: number | undefined;
    const grid = readDims(gridArg), block = readDims(blockArg);
    const limitsOk = (dims: { dims: number[]; node: ts.Node }[], kind: "grid" | "block"): boolean => {
      let ok = true;
      dims.forEach((d, i) => {
        const v = d.dims[0]!;
        if (v <= 0 || !Number.isInteger(v)) {
          diagnostics.push(makeDiagnostic(Codes.LaunchDimNotPositive, where, `${kind} size ${"xyz"[i]} is ${v}: grid and block sizes must be positive whole numbers`));
          ok = false;
        } else if (i < 3 && v > (kind === "block" ? MAX_BLOCK : MAX_GRID)[i]!) {
          const code = kind === "block" && i < 2 ? Codes.BlockTooLarge : Codes.LaunchDimTooLarge;
          const fix = kind === "grid" ? ": put the large dimension in x" : code === Codes.BlockTooLarge ? `: ${smallerBlocks(fn.name, grid, dims)}` : "";
          diagnostics.push(makeDiagnostic(code, where, `${kind} ${"xyz"[i]} is ${v}, above CUDA's limit of ${(kind === "block" ? MAX_BLOCK : MAX_GRID)[i]}${fix}`));
          ok = false;
        }
      });
      if (dims.length > 3) {
        diagnostics.push(makeDiagnostic(Codes.LaunchDimTooLarge, where, `a ${kind} has at most 3 dimensions`));
        ok = false;
      }
      return ok;
    };
    const gridOk = grid ? limitsOk(grid, "grid") : false;
    if (gridOk && block && block.length <= 3) {
      // cuda.grid(1) is an i32: past 2^31 - 1 threads along x it wraps (negative indices). Only launches
      // whose constant sizes get there are reported, and only for kernels that read cuda.grid's x.
      const threadsX = grid![0]!.dims[0]! * block[0]!.dims[0]!;
      if (threadsX > 2147483647 && readsGridX(fn))
        diagnostics.push(
          makeDiagnostic(
            Codes.GridIndexOverflow,
            where,
            `this launch runs ${threadsX} threads along x, past 2^31 - 1, where cuda.grid(1) in '${fn.name}' (an i32) wraps to negative values: use const i = cuda.grid64(1) (an i64) and index with a[Number(i)]`,
          ),
        );
    }
    if (block && limitsOk(block, "block")) {
      threads = block.reduce((a, d) => a * d.dims[0]!, 1);
      const bound = fn.options.launchBounds?.maxThreadsPerBlock;
      if (threads > 1024)
        diagnostics.push(makeDiagnostic(Codes.BlockTooLarge, where, `a block of ${block.map((d) => d.dims[0]).join(" × ")} = ${threads} threads is over CUDA's 1024-thread limit: ${smallerBlocks(fn.name, grid, block)}`));
      else if (bound !== undefined && threads > bound)
        diagnostics.push(
          makeDiagnostic(
            Codes.BlockOverLaunchBounds,
            where,
            `a block of ${block.map((d) => d.dims[0]).join(" × ")} = ${threads} threads is over the launchBounds of '${fn.name}' (${bound} threads per block), so the launch would fail: use blocks of at most ${bound} threads, or raise launchBounds in cuda.jit(fn, { launchBounds })`,
          ),
        );
    }
    let sharedMemBytes: number | undefined;
    let hasSharedMemOption = false;
    if (optionsArg) {
      const o = stripParensAndNonNull(optionsArg);
      if (ts.isObjectLiteralExpression(o)) {
        for (const p of o.properties) {
          if (p.name && ts.isIdentifier(p.name) && p.name.text === "sharedMem") {
            hasSharedMemOption = true;
            if (ts.isPropertyAssignment(p)) {
              const v = folder().fold(p.initializer);
              if (v && typeof v.value === "number") sharedMemBytes = v.value;
            }
          }
        }
      } else hasSharedMemOption = true; // options computed elsewhere: cannot tell
    }
    if (host.usesDynamicShared(fn) && !hasSharedMemOption && grid && block)
      diagnostics.push(makeDiagnostic(Codes.DynamicSharedWithoutSize, where, `'${fn.name}' uses dynamic shared memory (cuda.shared.array(0, …)) but this launch gives no size: pass { sharedMem: bytes } as the third launch argument`));

    // Arguments
    const params = fn.params;
    const args = full.arguments;
    const hasSpread = args.some((a) => ts.isSpreadElement(a));
    if (!hasSpread && args.length !== params.length)
      diagnostics.push(makeDiagnostic(Codes.LaunchArgumentCount, span(full), `'${fn.name}' takes ${params.length} argument${params.length === 1 ? "" : "s"} (${params.map((p) => p.name).join(", ")}), but this launch passes ${args.length}`));
    args.forEach((a, i) => {
      const p = params[i];
      if (!p) return;
      const x = stripParensAndNonNull(a);
      const isArray = p.type.kind === "array";
      // Record parameters: the fields of the record array (or record) passed, where this file shows them (record-launch.ts).
      if (p.type.kind === "array" && p.type.record) {
        const d = checkRecordLaunchArgument(host.front, module, fn.name, p.name, { ...p.type.record, rank: p.type.rank }, !!p.type.byValue, a, span(a));
        if (d) diagnostics.push(d);
        if (d || (p.type.byValue && ts.isObjectLiteralExpression(x))) return;
      }
      if (p.type.kind === "scalar" && isComplex(p.type.dtype) && ts.isObjectLiteralExpression(x)) {
        // A complex scalar takes { re, im } (docs/host-api.md); the runtime checks the values (CSR029).
        if (!isComplexLiteral(x))
          diagnostics.push(makeDiagnostic(Codes.LaunchArgumentKind, span(a), `parameter '${p.name}' of '${fn.name}' takes a complex number { re, im } (${p.type.dtype}), not ${x.getText(sf)}: write { re: 1, im: 0 }`));
      } else if (ts.isStringLiteral(x) || ts.isTemplateExpression(x) || ts.isNoSubstitutionTemplateLiteral(x) || ts.isObjectLiteralExpression(x))
        diagnostics.push(makeDiagnostic(Codes.LaunchArgumentKind, span(a), `parameter '${p.name}' of '${fn.name}' takes ${isArray ? "an array" : "a number"}, not ${ts.isObjectLiteralExpression(x) ? "an object" : "a string"}`));
      else if (isArray && (ts.isNumericLiteral(x) || (ts.isPrefixUnaryExpression(x) && ts.isNumericLiteral(x.operand))))
        diagnostics.push(makeDiagnostic(Codes.LaunchArgumentKind, span(a), `parameter '${p.name}' of '${fn.name}' takes an array, not a number: pass a typed array or a device array (cuda.toDevice(data))`));
      else if (!isArray && ts.isArrayLiteralExpression(x))
        diagnostics.push(makeDiagnostic(Codes.LaunchArgumentKind, span(a), `parameter '${p.name}' of '${fn.name}' takes a number, not an array`));
    });
    const totalThreads = grid && block && threads !== undefined ? grid.reduce((a, d) => a * d.dims[0]!, threads) : undefined;
    const argLengths = hasSpread ? undefined : args.map((a) => arrayLength(a, (e) => folder().fold(e)));
    sites.push({ kernel: fn.name, kernelId: fn.id, span: where, threadsPerBlock: threads, sharedMemBytes, totalThreads, argLengths });
  };

  visit(sf);
  return { diagnostics, sites };
}

/**
 * What to write for a block of more than 1024 threads: the same threads in blocks of at most 1024 (the
 * grid grows by what the block loses, dimension by dimension), and `forall` for a 1-D launch.
 */
function smallerBlocks(kernel: string, grid: readonly { dims: number[] }[] | undefined, block: readonly { dims: number[] }[]): string {
  const b = block.map((d) => d.dims[0]!);
  if (!grid || b.some((v) => !Number.isInteger(v) || v < 1)) return `use at most 1024 threads per block (e.g. ${kernel}.launch(blocks, 256)) and more blocks`;
  const g = Array.from({ length: Math.max(b.length, grid.length) }, (_, i) => grid[i]?.dims[0] ?? 1);
  let threads = 1;
  const nb = b.map((v, i) => {
    const keep = Math.max(1, Math.min(v, Math.floor(1024 / threads)));
    threads *= keep;
    g[i] = g[i]! * Math.ceil(v / keep);
    return keep;
  });
  const dim = (d: number[]) => (d.length === 1 ? String(d[0]) : `[${d.join(", ")}]`);
  const launch = `${kernel}.launch(${dim(g)}, ${dim(nb)})(…)`;
  return b.length === 1 && g.length === 1
    ? `write ${launch} (the same ${g[0]! * nb[0]!} threads in blocks of ${nb[0]}), or ${kernel}.forall(${(grid[0]?.dims[0] ?? 1) * b[0]!})(…), which picks the block size`
    : `write ${launch} (the same threads in blocks of ${threads})`;
}

/**
 * Whether `id` names something declared between it and the module scope (a parameter, a local, a
 * nested function), so that a module-level kernel of that name is not what it refers to.
 */
function isShadowed(id: ts.Identifier): boolean {
  const name = id.text;
  const binds = (b: ts.BindingName): boolean => (ts.isIdentifier(b) ? b.text === name : b.elements.some((e) => !ts.isOmittedExpression(e) && binds(e.name)));
  const declares = (st: ts.Statement): boolean =>
    (ts.isVariableStatement(st) && st.declarationList.declarations.some((d) => binds(d.name))) ||
    ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name?.text === name);
  for (let n: ts.Node = id.parent; !ts.isSourceFile(n); n = n.parent) {
    if (ts.isFunctionLike(n) && n.parameters.some((p) => binds(p.name))) return true;
    if (ts.isBlock(n) && n.statements.some(declares)) return true;
    if ((ts.isForStatement(n) || ts.isForOfStatement(n) || ts.isForInStatement(n)) && n.initializer && ts.isVariableDeclarationList(n.initializer) && n.initializer.declarations.some((d) => binds(d.name))) return true;
    if (ts.isCatchClause(n) && n.variableDeclaration && binds(n.variableDeclaration.name)) return true;
  }
  return false;
}

/** `{ re: …, im: … }`: both parts and nothing else (shorthand `{ re, im }` too). */
function isComplexLiteral(o: ts.ObjectLiteralExpression): boolean {
  const names = o.properties.map((p) => ((ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) && ts.isIdentifier(p.name) ? p.name.text : "?"));
  return names.length === 2 && names.includes("re") && names.includes("im");
}

/**
 * The element count of an array argument when the code shows it: `new Float32Array(N)`,
 * `cuda.deviceArray(N, f32)`, `cuda.toDevice(a)`, `cuda.deviceArrayLike(a)`, or a `const` bound to
 * one of these in an enclosing block (N a constant).
 */
export function arrayLength(e: ts.Expression, fold: (e: ts.Expression) => { value: unknown } | undefined, depth = 0): number | undefined {
  if (depth > 4) return undefined;
  const x = stripParensAndNonNull(e);
  const count = (n: ts.Expression | undefined): number | undefined => {
    const v = n && fold(n)?.value;
    return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : undefined;
  };
  if (ts.isNewExpression(x) && ts.isIdentifier(x.expression) && /^(Float(16|32|64)|U?Int(8|16|32)|Uint8Clamped|Big(U)?Int64)Array$/.test(x.expression.text)) return count(x.arguments?.[0]);
  if (ts.isCallExpression(x) && ts.isPropertyAccessExpression(x.expression) && ts.isIdentifier(x.expression.expression) && x.expression.expression.text === "cuda") {
    const [first] = x.arguments;
    const name = x.expression.name.text;
    if (name === "deviceArray") return count(first);
    if ((name === "toDevice" || name === "deviceArrayLike") && first) return arrayLength(first, fold, depth + 1);
  }
  if (ts.isIdentifier(x)) {
    const init = constInitializer(x);
    return init ? arrayLength(init, fold, depth + 1) : undefined;
  }
  return undefined;
}

/** The initializer of the `const` that `id` names, found in the blocks enclosing it (declared before it). */
function constInitializer(id: ts.Identifier): ts.Expression | undefined {
  for (let scope: ts.Node | undefined = id.parent; scope; scope = scope.parent) {
    if (!ts.isBlock(scope) && !ts.isSourceFile(scope)) continue;
    for (const st of scope.statements) {
      if (st.pos > id.pos) break;
      if (!ts.isVariableStatement(st) || !(st.declarationList.flags & ts.NodeFlags.Const)) continue;
      for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name) && d.name.text === id.text) return d.initializer;
    }
  }
  return undefined;
}

/** Whether the kernel's own body reads the x component of cuda.grid (the i32 `special` register). */
function readsGridX(fn: IrFunction): boolean {
  let found = false;
  forEachRootExpr(fn.body, (root: Expr) =>
    visitExpr(root, (e) => {
      if (e.k === "special" && e.reg === "grid" && e.axis === "x") found = true;
    }),
  );
  return found;
}
