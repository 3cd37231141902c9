// Parses ptxas's verbose (-v) resource report: what each kernel costs in registers, shared,
// constant and local memory. Two sources give it without a GPU:
//  - NVRTC's program log when compiling for a real arch (sm_XX) with `-Xptxas -v`;
//  - standalone ptxas `-v` on stderr (ptxas 13 adds barriers, cumulative stack size and compile
//    time, drops the "ptxas ." prefix of the stack-frame line, and omits cmem[0] for sm_90).
// Only the register count is taken as always present; every later item is optional.

export interface KernelResources {
  /** The entry's name as ptxas prints it (mangled unless declared extern "C"). */
  name: string;
  /** Target, e.g. "sm_80". */
  arch: string;
  registers: number;
  /** Static shared memory ("smem"), 0 when not reported (ptxas omits zero). */
  sharedBytes: number;
  /** Constant bank 0 ("cmem[0]": kernel parameters and driver data), 0 when not reported. */
  constBytes: number;
  /** Per-thread stack frame (local memory), including spills. */
  localBytes: number;
  spillStores: number;
  spillLoads: number;
  /** Named barriers used (ptxas 12.x/13 only). */
  barriers?: number;
  /** Stack including callees (ptxas 13, printed only when non-zero). */
  cumulativeStackBytes?: number;
  /** ptxas's own compile time for this entry (ptxas 13). */
  compileMillis?: number;
}

export interface PtxasReport {
  kernels: KernelResources[];
  /** Module-wide global variables ("N bytes gmem"). */
  globalBytes?: number;
  /** Module-wide constant banks other than per-kernel cmem[0], e.g. {3: 256} for __constant__ data. */
  moduleConstBytes: Record<number, number>;
}

interface Frame {
  stack: number;
  spillStores: number;
  spillLoads: number;
}

const COMPILING = /Compiling entry function '([^']+)' for '([^']+)'/;
const PROPERTIES = /Function properties for (\S+)/;
const FRAME = /(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads/;
const USED = /Used (\d+) registers(.*)$/;
const COMPILE_TIME = /Compile time = ([\d.]+) ms/;
const CMEM = /^(\d+) bytes cmem\[(\d+)\]$/;

/** Per-kernel resources from a ptxas -v report (NVRTC program log or ptxas stderr). */
export function parseKernelResources(report: string): KernelResources[] {
  return parsePtxasReport(report).kernels;
}

export function parsePtxasReport(report: string): PtxasReport {
  const result: PtxasReport = { kernels: [], moduleConstBytes: {} };
  const frames = new Map<string, Frame>(); // by arch + function name
  const withRegisters = new Set<KernelResources>();
  let current: KernelResources | undefined;
  let propertiesOf: string | undefined;
  let arch = "";

  for (const raw of report.split(/\r?\n/)) {
    const line = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = COMPILING.exec(line))) {
      arch = m[2]!;
      current = { name: m[1]!, arch, registers: 0, sharedBytes: 0, constBytes: 0, localBytes: 0, spillStores: 0, spillLoads: 0 };
      result.kernels.push(current);
      propertiesOf = undefined;
    } else if ((m = PROPERTIES.exec(line))) {
      propertiesOf = m[1]!;
    } else if ((m = FRAME.exec(line))) {
      // Belongs to the function named by the preceding "Function properties" line, which may be a
      // non-inlined device function rather than the kernel being compiled.
      if (propertiesOf !== undefined) {
        frames.set(`${arch}\0${propertiesOf}`, { stack: Number(m[1]), spillStores: Number(m[2]), spillLoads: Number(m[3]) });
      }
      propertiesOf = undefined;
    } else if ((m = USED.exec(line)) && current) {
      current.registers = Number(m[1]);
      withRegisters.add(current);
      applyUsageItems(current, m[2]!);
    } else if ((m = COMPILE_TIME.exec(line)) && current) {
      current.compileMillis = Number(m[1]);
    } else if (/bytes gmem/.test(line)) {
      applyModuleItems(result, line);
    }
  }

  result.kernels = result.kernels.filter((k) => withRegisters.has(k));
  for (const kernel of result.kernels) {
    const frame = frames.get(`${kernel.arch}\0${kernel.name}`);
    if (frame) {
      kernel.localBytes = frame.stack;
      kernel.spillStores = frame.spillStores;
      kernel.spillLoads = frame.spillLoads;
    }
  }
  return result;
}

// The comma-separated tail of "Used N registers, used 1 barriers, 1024 bytes smem, 372 bytes cmem[0]".
function applyUsageItems(kernel: KernelResources, tail: string): void {
  for (const item of tail.split(",").map((s) => s.trim()).filter(Boolean)) {
    let m: RegExpExecArray | null;
    if ((m = /^used (\d+) barriers?$/.exec(item))) kernel.barriers = Number(m[1]);
    // Old ptxas printed "static+dynamic" pairs such as "36+16 bytes smem".
    else if ((m = /^(\d+)(?:\+(\d+))? bytes smem$/.exec(item))) kernel.sharedBytes = Number(m[1]) + Number(m[2] ?? 0);
    else if ((m = CMEM.exec(item)) && m[2] === "0") kernel.constBytes = Number(m[1]);
    else if ((m = /^(\d+) bytes cumulative stack size$/.exec(item))) kernel.cumulativeStackBytes = Number(m[1]);
    else if ((m = /^(\d+)(?:\+(\d+))? bytes lmem$/.exec(item))) kernel.localBytes = Math.max(kernel.localBytes, Number(m[1]) + Number(m[2] ?? 0));
    // anything else (textures, samplers, other cmem banks) is not modelled
  }
}

// "0 bytes gmem, 256 bytes cmem[3]": module-wide data, printed once before the kernels.
function applyModuleItems(report: PtxasReport, line: string): void {
  const tail = line.replace(/^ptxas\s+info\s*:\s*/, "");
  for (const item of tail.split(",").map((s) => s.trim())) {
    let m: RegExpExecArray | null;
    if ((m = /^(\d+) bytes gmem$/.exec(item))) report.globalBytes = Number(m[1]); // printed once per arch: not a sum
    else if ((m = CMEM.exec(item))) report.moduleConstBytes[Number(m[2])] = Number(m[1]);
  }
}
