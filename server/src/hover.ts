/**
 * Hovers: occupancy on a kernel's name (declaration or any reference) and on a `kernel.launch(...)`
 * site; documentation for `cuda.*`, `Math.*` inside kernels and the dtypes; record layouts (record-hover.ts).
 */
import type { FileCheck, IrFunction } from "@cudascript/compiler";
import { MarkupKind, type Hover, type Position } from "vscode-languageserver";
import { CUDA_API_DOCS, DTYPE_DOCS, renderApiDoc, renderMathDoc } from "./api-docs";
import { cudaPathAt, enclosingFunction, mathMemberAt, nodeAt, type ModuleInfo } from "./ast";
import { recordHover } from "./record-hover";
import { kernelFacts, launchFacts, occupancyReport, renderOccupancyMarkdown, type LaunchFacts, type OccupancyReport } from "./occupancy-view";
import type { ResourceService } from "./resources";
import { ts, type TS } from "./tsapi";
import type { Workspace } from "./workspace";

export interface HoverContext {
  readonly ws: Workspace;
  readonly resources: ResourceService;
  arch(): string;
  /** Asks for a background compile of a file that is not open (an imported kernel's). */
  requestResources(check: FileCheck): void;
}

export function hover(ctx: HoverContext, uri: string, position: Position): Hover | null {
  const checked = ctx.ws.ensureChecked(uri);
  const doc = ctx.ws.document(uri);
  if (!checked || !doc || !checked.result.isCudaScriptFile) return null;
  const info = ctx.ws.checker.front.moduleInfo(checked.path);
  if (!info) return null;
  const sf = info.sourceFile;
  const offset = doc.offsetAt(position);
  const node = nodeAt(sf, offset);
  const range = (n: TS.Node) => ({ start: doc.positionAt(n.getStart(sf)), end: doc.positionAt(n.end) });
  const md = (value: string, n: TS.Node): Hover => ({ contents: { kind: MarkupKind.Markdown, value }, range: range(n) });

  // A launch site: `kernel.launch(grid, block, options)`.
  const site = checked.result.launchSites.find((s) => offset >= s.span.start && offset <= s.span.end);
  if (site) {
    const report = launchOccupancy(ctx, checked.result, site);
    if (report) return { contents: { kind: MarkupKind.Markdown, value: renderOccupancyMarkdown(report) }, range: { start: doc.positionAt(site.span.start), end: doc.positionAt(site.span.end) } };
  }
  if (!node || !ts.isIdentifier(node)) return null;

  // `cuda.*`
  const cudaPath = cudaPathAt(node, info);
  if (cudaPath !== undefined) {
    const d = CUDA_API_DOCS[cudaPath];
    if (d) return md(renderApiDoc(d) + hostNote(info, offset, cudaPath), node);
    return null;
  }
  const inKernel = enclosingFunction(info, offset);
  // `Math.*` inside kernels and device functions.
  const mathName = inKernel && mathMemberAt(node);
  if (mathName) {
    const text = renderMathDoc(mathName);
    return text ? md(text, node) : md(`\`Math.${mathName}\` is not available in kernels.`, node);
  }
  // dtypes imported from cudascript
  const cs = info.cudascript.get(node.text);
  if (cs?.kind === "dtype" && DTYPE_DOCS[cs.dtype]) return md(`\`${cs.dtype}\` (from "cudascript"): ${DTYPE_DOCS[cs.dtype]}`, node);

  // A record type or field: its layout (record-hover.ts).
  const record = recordHover(ctx.ws.checker.front, info, node);
  if (record) return md(record, node);

  // A kernel's name: its declaration, or a reference in host code.
  const kernel = kernelNamed(ctx, info, checked.result, node);
  if (kernel) {
    const report = kernelOccupancy(ctx, kernel.check, kernel.fn, kernel.check === checked.result ? checked.result : undefined);
    if (report) return md(renderOccupancyMarkdown(report), node);
  }
  return null;
}

function hostNote(info: ModuleInfo, offset: number, path: string): string {
  if (path === "" || path === "jit" || path === "device") return "";
  return enclosingFunction(info, offset) ? "" : "\n\n_Only available inside kernels and device functions._";
}

function kernelNamed(ctx: HoverContext, info: ModuleInfo, check: FileCheck, id: TS.Identifier): { fn: IrFunction; check: FileCheck } | undefined {
  // Property names (`x.k0`) are not references to a module-level kernel.
  if (ts.isPropertyAccessExpression(id.parent) && id.parent.name === id) return undefined;
  if (enclosingFunction(info, id.getStart(info.sourceFile)) && !isDeclarationName(info, id)) return undefined;
  const sym = ctx.ws.checker.front.resolveName(info, id.text);
  if (sym?.kind !== "function" || sym.fn.kind !== "kernel") return undefined;
  const fileCheck = sym.module.file === info.file ? check : ctx.ws.resultForPath(sym.module.file);
  const fn = fileCheck?.module.kernels.find((k) => k.name === sym.fn.name);
  return fn && fileCheck ? { fn, check: fileCheck } : undefined;
}

function isDeclarationName(info: ModuleInfo, id: TS.Identifier): boolean {
  for (const f of info.functions.values()) if (f.nameNode === id) return true;
  return false;
}

export function kernelOccupancy(ctx: HoverContext, declaring: FileCheck, kernel: IrFunction, launchesFrom?: FileCheck, moreLaunches: readonly LaunchFacts[] = []): OccupancyReport | undefined {
  const arch = ctx.arch();
  const sites = [...(launchesFrom ?? declaring).launchSites.filter((s) => s.kernelId === kernel.id).map(launchFacts), ...moreLaunches];
  const registers = registersOf(ctx, declaring, kernel, arch);
  return occupancyReport(kernelFacts(declaring, kernel), arch, registers, undefined, sites);
}

function launchOccupancy(ctx: HoverContext, check: FileCheck, site: FileCheck["launchSites"][number]): OccupancyReport | undefined {
  const [file] = splitId(site.kernelId);
  const declaring = file === check.file ? check : ctx.ws.resultForPath(file);
  const kernel = declaring?.module.kernels.find((k) => k.id === site.kernelId);
  if (!declaring || !kernel) return undefined;
  const arch = ctx.arch();
  const registers = registersOf(ctx, declaring, kernel, arch);
  return occupancyReport(kernelFacts(declaring, kernel), arch, registers, launchFacts(site));
}

function registersOf(ctx: HoverContext, declaring: FileCheck, kernel: IrFunction, arch: string) {
  const info = ctx.resources.info(declaring.module, kernel, arch);
  if (!info.known && info.pending && !ctx.ws.uriOfPath(declaring.file)) ctx.requestResources(declaring);
  return info;
}

function splitId(id: string): [string, string] {
  const i = id.lastIndexOf("#");
  return [id.slice(0, i), id.slice(i + 1)];
}
