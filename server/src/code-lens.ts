/** CodeLens above each kernel: Run, Debug and Profile (a kernel with an @run tag: the tag says how to launch it), Show CUDA C++, Show PTX, and the occupancy summary. */
import { runTagBlockThreads } from "@cudascript/compiler";
import type { CodeLens, Range } from "vscode-languageserver";
import type { HoverContext } from "./hover";
import { kernelOccupancy } from "./hover";
import { listKernels } from "./kernels";
import { occupancyLensTitle } from "./occupancy-view";
import type { Positions } from "./positions";
import { Commands, type KernelCommandArgs } from "./protocol";

export function codeLenses(ctx: HoverContext & { positions: Positions }, uri: string): CodeLens[] {
  // Only documents the editor has open: a lens points into the buffer the user sees.
  if (!ctx.ws.document(uri)) return [];
  const checked = ctx.ws.ensureChecked(uri);
  if (!checked) return [];
  const lenses: CodeLens[] = [];
  for (const { listing, fn } of listKernels(ctx.ws, ctx.positions, uri)) {
    const range: Range = { start: listing.range.start, end: listing.range.start };
    const args: KernelCommandArgs = { uri, kernel: listing.name };
    lenses.push({ range, command: { title: "▶ Run", command: Commands.runKernel, arguments: [args] } });
    if (listing.run !== undefined) lenses.push({ range, command: { title: "Debug", command: Commands.debugKernel, arguments: [args] } });
    // the client runs the profiler (the server never executes user code); a kernel without @run gets the same offer as Run
    lenses.push({ range, command: { title: "Profile", command: Commands.profileKernel, arguments: [args] } });
    lenses.push(
      { range, command: { title: "Show CUDA C++", command: Commands.showCuda, arguments: [args] } },
      { range, command: { title: "Show PTX", command: Commands.showPtx, arguments: [args] } },
    );
    // The launches written in the file come first; else the block the @run tag launches with (Run, Debug).
    const tagThreads = runTagBlockThreads(listing.run);
    const tagLaunch = tagThreads !== undefined ? [{ threadsPerBlock: tagThreads, line: listing.range.start.line + 1 }] : [];
    const report = fn && kernelOccupancy(ctx, checked.result, fn, undefined, tagLaunch);
    if (report) lenses.push({ range, command: { title: occupancyLensTitle(report), command: Commands.showOccupancy, arguments: [args] } });
  }
  return lenses;
}
