/** CodeLens above each kernel: Run, Show CUDA C++, Show PTX, and the occupancy summary. */
import type { CodeLens, Range } from "vscode-languageserver";
import type { HoverContext } from "./hover";
import { kernelOccupancy } from "./hover";
import { occupancyLensTitle } from "./occupancy-view";
import { Commands, type KernelCommandArgs } from "./protocol";

export function codeLenses(ctx: HoverContext, uri: string): CodeLens[] {
  const checked = ctx.ws.ensureChecked(uri);
  const doc = ctx.ws.document(uri);
  if (!checked || !doc || !checked.result.isCudaScriptFile) return [];
  const info = ctx.ws.checker.front.moduleInfo(checked.path);
  if (!info || info.sourceFile.text !== doc.getText()) return [];
  const lenses: CodeLens[] = [];
  for (const decl of info.functions.values()) {
    if (decl.kind !== "kernel") continue;
    const start = doc.positionAt(decl.statement.getStart(info.sourceFile));
    const range: Range = { start, end: start };
    const args: KernelCommandArgs = { uri, kernel: decl.name };
    lenses.push(
      { range, command: { title: "▶ Run", command: Commands.runKernel, arguments: [args] } },
      { range, command: { title: "Show CUDA C++", command: Commands.showCuda, arguments: [args] } },
      { range, command: { title: "Show PTX", command: Commands.showPtx, arguments: [args] } },
    );
    const fn = checked.result.module.kernels.find((k) => k.name === decl.name);
    const report = fn && kernelOccupancy(ctx, checked.result, fn);
    if (report) lenses.push({ range, command: { title: occupancyLensTitle(report), command: Commands.showOccupancy, arguments: [args] } });
  }
  return lenses;
}
