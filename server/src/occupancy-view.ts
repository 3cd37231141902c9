/**
 * Occupancy reports for hovers, the CodeLens summary and the `cudascript/occupancy` request, from the
 * compiler's calculator (`cuda_occupancy.h` formulas). Registers come from NVRTC or are marked unknown:
 * then the register limit is left out and occupancy is shown as an upper bound ("≤").
 */
import {
  computeOccupancy,
  DEFAULT_BLOCK_SIZES,
  formatBytes,
  formatPercent,
  launchBoundsRegisterCap,
  parseArch,
  type KernelLaunchBounds,
  type FileCheck,
  type IrFunction,
  type IrModule,
  type LaunchSite,
  type OccupancyResult,
  type Stmt,
} from "@cudascript/compiler";
import type { RegisterInfo } from "./resources";

export interface KernelFacts {
  readonly kernel: IrFunction;
  readonly module: IrModule;
  readonly staticSharedBytes: number;
  readonly usesDynamicShared: boolean;
}

export interface LaunchFacts {
  readonly threadsPerBlock?: number;
  readonly sharedMemBytes?: number;
  /** 1-based line of the launch. */
  readonly line: number;
}

export interface OccupancyRow {
  readonly threadsPerBlock: number;
  readonly fromLaunch: boolean;
  readonly result: OccupancyResult;
}

export interface OccupancyReport {
  readonly kernel: string;
  readonly arch: string;
  /** Set when the calculator has no table row for `arch`: then no numbers are shown (never a 0 %). */
  readonly unknownArch?: string;
  readonly registers: RegisterInfo;
  readonly staticSharedBytes: number;
  readonly dynamicSharedBytes: number;
  /** How the dynamic size was found: "launch" (constant at the launch), "none" (kernel uses none), "unknown". */
  readonly dynamicSource: "launch" | "none" | "unknown";
  /** The kernel's `launchBounds`: the table and the suggestion stay at or below its block size. */
  readonly launchBounds?: KernelLaunchBounds;
  readonly launch?: LaunchFacts;
  readonly rows: readonly OccupancyRow[];
  /** The row the suggestion and the CodeLens summary are about. */
  readonly focus: OccupancyRow;
  readonly suggestion?: string;
}

export function kernelFacts(check: FileCheck, kernel: IrFunction): KernelFacts {
  return {
    kernel,
    module: check.module,
    staticSharedBytes: check.staticSharedBytes.get(kernel.id) ?? 0,
    usesDynamicShared: usesDynamicShared(kernel, check.module),
  };
}

function usesDynamicShared(kernel: IrFunction, module: IrModule): boolean {
  const byId = new Map(module.deviceFunctions.map((f) => [f.id, f]));
  const seen = new Set<string>();
  const stack: IrFunction[] = [kernel];
  let found = false;
  const visit = (stmts: readonly Stmt[]): void => {
    for (const s of stmts) {
      if (s.k === "arrayDecl" && s.arrayType.space === "shared" && s.arrayType.shape?.length === 1 && s.arrayType.shape[0] === 0) found = true;
      else if (s.k === "if") {
        visit(s.then);
        if (s.else) visit(s.else);
      } else if (s.k === "loop") {
        visit(s.init);
        visit(s.body);
        visit(s.update);
      } else if (s.k === "block") visit(s.body);
    }
  };
  while (stack.length && !found) {
    const f = stack.pop()!;
    if (seen.has(f.id)) continue;
    seen.add(f.id);
    visit(f.body);
    for (const c of f.callees) {
      const callee = byId.get(c);
      if (callee) stack.push(callee);
    }
  }
  return found;
}

/**
 * The occupancy report of a kernel: for one launch (its constant block size) when `launch` is given,
 * else for 128/256/512/1024 threads plus the constant block sizes of `otherLaunches`.
 */
export function occupancyReport(facts: KernelFacts, arch: string, registers: RegisterInfo, launch?: LaunchFacts, otherLaunches: readonly LaunchFacts[] = []): OccupancyReport {
  const constantLaunches = (launch ? [launch] : otherLaunches).filter((l) => l.threadsPerBlock !== undefined);
  const focusLaunch = launch ?? constantLaunches[0];
  let dynamicSharedBytes = 0;
  let dynamicSource: OccupancyReport["dynamicSource"] = "none";
  if (facts.usesDynamicShared) {
    const sizes = new Set((launch ? [launch] : otherLaunches).map((l) => l.sharedMemBytes));
    const only = sizes.size === 1 ? [...sizes][0] : undefined;
    if (only !== undefined) {
      dynamicSharedBytes = only;
      dynamicSource = "launch";
    } else dynamicSource = "unknown";
  } else if (launch?.sharedMemBytes) {
    dynamicSharedBytes = launch.sharedMemBytes;
    dynamicSource = "launch";
  }
  const base = {
    arch,
    registersPerThread: registers.known ? registers.registers : undefined,
    staticSharedBytes: facts.staticSharedBytes,
    dynamicSharedBytes,
    launchBounds: facts.kernel.options.launchBounds,
  };
  const bound = base.launchBounds?.maxThreadsPerBlock;
  const rows: OccupancyRow[] = [];
  const add = (threadsPerBlock: number, fromLaunch: boolean) => {
    if (rows.some((r) => r.threadsPerBlock === threadsPerBlock)) return;
    rows.push({ threadsPerBlock, fromLaunch, result: computeOccupancy({ ...base, threadsPerBlock }) });
  };
  if (launch?.threadsPerBlock !== undefined) add(launch.threadsPerBlock, true);
  else {
    for (const l of constantLaunches) add(l.threadsPerBlock!, true);
    // Common sizes the kernel can launch with, and its bound itself.
    for (const t of DEFAULT_BLOCK_SIZES) if (bound === undefined || t <= bound) add(t, false);
    if (bound !== undefined) add(bound, false);
    rows.sort((a, b) => a.threadsPerBlock - b.threadsPerBlock);
  }
  const focus = rows.find((r) => r.threadsPerBlock === focusLaunch?.threadsPerBlock) ?? rows.find((r) => r.threadsPerBlock === 256) ?? rows.find((r) => r.threadsPerBlock === bound) ?? rows[0]!;
  let unknownArch: string | undefined;
  try {
    parseArch(arch);
  } catch (e) {
    unknownArch = (e as Error).message;
  }
  return {
    kernel: facts.kernel.name,
    arch,
    ...(unknownArch !== undefined ? { unknownArch } : {}),
    registers,
    staticSharedBytes: facts.staticSharedBytes,
    dynamicSharedBytes,
    dynamicSource,
    ...(base.launchBounds ? { launchBounds: base.launchBounds } : {}),
    launch: focusLaunch,
    rows,
    focus,
    suggestion: focus.result.suggestion,
  };
}

export function launchFacts(site: LaunchSite): LaunchFacts {
  return { threadsPerBlock: site.threadsPerBlock, sharedMemBytes: site.sharedMemBytes, line: site.span.line };
}

const FACTOR_NAMES: Record<string, string> = { warps: "warps", registers: "registers", sharedMemory: "shared memory", blocks: "blocks per SM" };

function bytes(n: number): string {
  const f = formatBytes(n);
  return f.endsWith("bytes") ? f : `${f} (${n} bytes)`;
}

function percent(r: OccupancyResult, registersKnown: boolean): string {
  return `${registersKnown ? "" : "≤ "}${formatPercent(r.occupancy)}`;
}

export function registersText(info: RegisterInfo): string {
  if (!info.known) return `unknown (${info.reason})`;
  const extra: string[] = [];
  if (info.report.localBytes) extra.push(`${info.report.localBytes} bytes local memory per thread`);
  if (info.report.spillStores || info.report.spillLoads) extra.push(`spills: ${info.report.spillStores ?? 0} B stored, ${info.report.spillLoads ?? 0} B loaded`);
  return `${info.registers} (from ${info.source}${extra.length ? `; ${extra.join(", ")}` : ""})`;
}

export function renderOccupancyMarkdown(r: OccupancyReport): string {
  const out: string[] = [];
  if (r.unknownArch !== undefined) {
    out.push(`**Occupancy of \`${r.kernel}\`**: unknown architecture ${r.arch}`, "", `${r.unknownArch} Set \`cudascript.targetArch\` to one of them.`);
    return out.join("\n");
  }
  out.push(`**Occupancy of \`${r.kernel}\`** on ${r.arch}`, "");
  out.push("| | |", "|---|---|");
  out.push(`| Registers per thread | ${escapeCell(registersText(r.registers))} |`);
  out.push(`| Static shared memory | ${bytes(r.staticSharedBytes)} per block |`);
  const dyn =
    r.dynamicSource === "none"
      ? "none"
      : r.dynamicSource === "launch"
        ? `${bytes(r.dynamicSharedBytes)} per block (launch)${optInNote(r)}`
        : "sized at launch, not constant here (counted as 0)";
  out.push(`| Dynamic shared memory | ${dyn} |`);
  if (r.launchBounds) out.push(`| Launch bounds | ${launchBoundsText(r.launchBounds, r.arch)} |`);
  out.push("");
  if (r.launch?.threadsPerBlock !== undefined) out.push(`Launch at line ${r.launch.line}: ${r.launch.threadsPerBlock} threads per block.`, "");
  else if (r.launch) out.push(`Launch at line ${r.launch.line}: block size not constant; common block sizes:`, "");
  out.push("| Threads per block | Active blocks per SM | Occupancy | Limited by |", "|---:|---:|---:|---|");
  for (const row of r.rows) {
    const res = row.result;
    const limited = res.activeBlocksPerSM === 0 ? escapeCell(res.reason ?? "cannot launch") : res.limitedBy.map((f) => FACTOR_NAMES[f] ?? f).join(", ");
    const mark = row.fromLaunch && r.rows.length > 1 ? " (launch)" : "";
    out.push(`| ${row.threadsPerBlock}${mark} | ${res.activeBlocksPerSM} | ${percent(res, r.registers.known)} | ${limited} |`);
  }
  if (!r.registers.known) out.push("", "_Registers unknown: the register limit is left out, so occupancy is an upper bound._");
  out.push("", r.suggestion ? `**Suggestion** (${r.focus.threadsPerBlock} threads): ${r.suggestion}` : `No change suggested at ${r.focus.threadsPerBlock} threads.`);
  return out.join("\n");
}

/** `at most 128 threads per block; 4 blocks per SM, so registers ≤ 128 per thread`. */
function launchBoundsText(b: KernelLaunchBounds, arch: string): string {
  const max = `at most ${b.maxThreadsPerBlock} threads per block (launchBounds)`;
  if (b.minBlocksPerMultiprocessor === undefined) return max;
  const cap = launchBoundsRegisterCap(arch, b);
  const blocks = `${b.minBlocksPerMultiprocessor} block${b.minBlocksPerMultiprocessor === 1 ? "" : "s"} per SM`;
  return `${max}; ${blocks}, so the compiler keeps ${cap === undefined ? "registers as low as it can" : `registers ≤ ${cap} per thread`}`;
}

/**
 * Above the default 48 KiB per block a kernel needs the opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize),
 * which the GPU backend sets before the launch: say so, with the architecture's ceiling.
 */
function optInNote(r: OccupancyReport): string {
  let arch;
  try {
    arch = parseArch(r.arch);
  } catch {
    return "";
  }
  const total = r.staticSharedBytes + r.dynamicSharedBytes;
  if (total <= arch.maxSharedMemoryPerBlock) return "";
  const ceiling = `${formatBytes(arch.maxSharedMemoryPerBlockOptin)} on ${arch.name}`;
  return total <= arch.maxSharedMemoryPerBlockOptin
    ? `; over the default ${formatBytes(arch.maxSharedMemoryPerBlock)}, so the kernel is opted in to more (up to ${ceiling})`
    : `; over the ${ceiling} a block can have even opted in`;
}

/** `occupancy 100% @256 threads · 10 regs (sm_80)`. */
export function occupancyLensTitle(r: OccupancyReport): string {
  if (r.unknownArch !== undefined) return `occupancy: unknown architecture (${r.arch})`;
  const f = r.focus;
  const regs = r.registers.known ? `${r.registers.registers} regs` : "regs unknown";
  return `occupancy ${percent(f.result, r.registers.known).replace(" ", "")} @${f.threadsPerBlock} threads · ${regs} (${r.arch})`;
}

function escapeCell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}
