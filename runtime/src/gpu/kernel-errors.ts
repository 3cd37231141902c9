/**
 * Exceptions in kernels on the GPU (issue 31 item 2): the generated code of a module whose kernels can
 * raise (`throw new Error(…)`, a failed console.assert) defines one device-side error record,
 * RAISE_RECORD_SYMBOL (compiler/src/cuda/raise.ts: 16 u64 — state, site, block, thread, the message's
 * values). The first thread to raise claims it by compare-and-swap and ends. This module reads the
 * records at each synchronization after a launch of a kernel that can raise, clears a written one, and
 * turns it into the same CSR085 CudaScriptError the simulator throws (simulator/fault.ts kernelRaised),
 * its message formatted on the host from the site's format (the simulator's printf formatter).
 */
import type { CudaContext, CudaModule, CudaStream, ModuleGlobal } from "@cudascript/native-bindings/cuda";
import type { CudaScriptError } from "../errors";
import { CudaScriptError as ErrorClass } from "../errors";
import { kernelRaised } from "../simulator/fault";
import { formatPrintf } from "../simulator/rt";

/** The record's PTX name: the same string as the compiler's RAISE_RECORD_SYMBOL (kept here so that running kernels does not load the compiler; test/gpu/double-raise.test.ts checks NVRTC's PTX against it). */
export const RAISE_RECORD_SYMBOL = "cs_error_record";
const RECORD_WORDS = 16;
const FIRST_VALUE = 8;
const WRITTEN = 2n;

const DEFINES_RECORD = new RegExp(String.raw`^[ \t]*(?:\.visible[ \t]+)?\.global[ \t]+\.align[ \t]+8[ \t]+\.b8[ \t]+${RAISE_RECORD_SYMBOL}\[${RECORD_WORDS * 8}\]`, "m");

/** Whether a PTX module defines the error record (modules whose kernels never raise do not). */
export function ptxDefinesRaiseRecord(ptx: string): boolean {
  return DEFINES_RECORD.test(ptx);
}

/** A raise of the module, as the compiler numbers them (raiseSites in compiler/src/cuda/raise.ts). */
export interface RaiseSiteInfo {
  readonly fn: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly format: string;
  readonly values: readonly string[];
}

interface Record {
  readonly module: CudaModule;
  readonly sites: readonly RaiseSiteInfo[];
  /** Source names of the module's kernels, by PTX symbol is not needed: the record names the site. */
  global: ModuleGlobal | undefined;
}

/** The error records of one CUDA context, and the kernels that can raise launched since the last read. */
export class KernelErrorWatch {
  private readonly records: Record[] = [];
  /** Kernels that can raise launched since the last read (the error names the kernel that ran the site). */
  private readonly launched: string[] = [];

  addModule(module: CudaModule, sites: readonly RaiseSiteInfo[]): void {
    if (!this.records.some((r) => r.module === module)) this.records.push({ module, sites, global: undefined });
  }

  beforeLaunch(kernel: string, raises: boolean): void {
    if (raises && !this.launched.includes(kernel)) this.launched.push(kernel);
  }

  /**
   * After a synchronization: reads the records (only if a kernel that can raise was launched since the
   * last read), clears the written ones, and returns the error of the first, else undefined. After a
   * stream synchronization the copies go on that stream.
   */
  read(ctx: CudaContext, stream?: CudaStream): CudaScriptError | undefined {
    if (this.launched.length === 0) return undefined;
    // After a stream synchronization a kernel on another stream may still run: keep reading at later ones.
    const kernels = stream ? [...this.launched] : this.launched.splice(0);
    let error: CudaScriptError | undefined;
    const words = new BigUint64Array(RECORD_WORDS);
    for (const r of this.records) {
      if (r.module.context !== ctx) continue;
      r.global ??= r.module.getGlobal(RAISE_RECORD_SYMBOL);
      if (stream) ctx.copyDtoHAsync(words, r.global, stream);
      else ctx.copyDtoH(words, r.global);
      if (words[0] !== WRITTEN) continue;
      const record = words.slice();
      words.fill(0n);
      // Cleared for the next launch: a raise is reported once.
      if (stream) {
        ctx.copyHtoDAsync(r.global, words, stream);
        stream.synchronize();
      } else ctx.copyHtoD(r.global, words);
      error ??= raisedError(record, r.sites, kernels);
    }
    return error;
  }
}

/** The CSR085 error of a written record (the same text and details as the simulator's). */
export function raisedError(record: BigUint64Array, sites: readonly RaiseSiteInfo[], kernels: readonly string[]): CudaScriptError {
  const site = sites[Number(record[1])];
  const block: [number, number, number] = [Number(record[2]), Number(record[3]), Number(record[4])];
  const thread: [number, number, number] = [Number(record[5]), Number(record[6]), Number(record[7])];
  if (!site) return new ErrorClass("CSR085", `kernel raised an error in block (${block.join(", ")}), thread (${thread.join(", ")}): the record names raise site ${record[1]}, which this program does not have (a CudaScript bug: please report it)`);
  const values = site.values.map((d, i) => decodeValue(d, record[FIRST_VALUE + i] ?? 0n));
  const fault = kernelRaised(formatPrintf(site.format, values), { kind: "raise", fn: site.fn, file: site.file, line: site.line, col: site.col });
  // The kernel launched that reaches the site: the one named like the function, else the only one, else all.
  fault.kernel = kernels.includes(site.fn) ? site.fn : kernels.length === 1 ? kernels[0]! : kernels.join("' or '");
  fault.block = block;
  fault.thread = thread;
  return new ErrorClass(fault.code, fault.describe(), fault.details());
}

function decodeValue(dtype: string, bits: bigint): number | boolean | bigint {
  switch (dtype) {
    case "bool":
      return bits !== 0n;
    case "i64":
      return BigInt.asIntN(64, bits);
    case "u64":
      return bits;
    case "f64":
    case "f32":
    case "f16":
      return new Float64Array(BigUint64Array.of(bits).buffer)[0]!;
    case "u32":
      return Number(BigInt.asUintN(32, bits));
    default:
      return Number(BigInt.asIntN(64, bits));
  }
}
