/**
 * A stand-in for the compiler's NVRTC entry point, loaded by the server through
 * CUDASCRIPT_LSP_BACKEND in tests only: `compileModule` reports 64 registers for every kernel (so the
 * occupancy with a register limit can be worked out by hand) and returns a tiny PTX with `.loc` lines;
 * `generateCuda` is the compiler's own when it has one. Every compile is appended to FAKE_BACKEND_LOG.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { IrModule } from "@cudascript/compiler";

export const FAKE_REGISTERS = 64;

const real = require("@cudascript/compiler") as Record<string, unknown>;

export const generateCuda =
  typeof real.generateCuda === "function"
    ? real.generateCuda
    : (module: IrModule) => ({
        source: module.kernels.map((k) => `extern "C" __global__ void ${k.name}() {}`).join("\n"),
        kernels: module.kernels.map((k) => ({ name: k.name, symbol: k.name })),
        lineMap: module.kernels.map((k, i) => ({ generatedLine: i + 1, file: module.file, line: k.span.line })),
      });

export async function compileModule(module: IrModule, options: { arch: string; emit?: string[]; lineinfo?: boolean }): Promise<unknown> {
  if (process.env.FAKE_BACKEND_LOG) fs.appendFileSync(process.env.FAKE_BACKEND_LOG, `compile ${options.arch} ${module.kernels.map((k) => k.name).join(",")}\n`);
  await new Promise((r) => setTimeout(r, 5));
  if (process.env.FAKE_NVRTC_MISSING) return { ok: false, resources: new Map(), nvrtcUnavailable: { message: "libnvrtc was not found (fake)" }, diagnostics: [] };
  const lines = [".version 7.8", `.target ${options.arch}`, ".address_size 64", `.file 1 "${path.basename(module.file)}"`];
  for (const k of module.kernels) {
    lines.push(`.visible .entry ${k.name}(`, ")", "{", `.loc 1 ${k.span.line} 1`, "mov.u32 %r1, 0;", `.loc 1 ${k.span.line + 1} 3`, "ret;", "}");
  }
  return {
    ok: true,
    ptx: lines.join("\n") + "\n",
    resources: new Map(module.kernels.map((k) => [k.name, { registers: FAKE_REGISTERS, sharedBytes: 0, localBytes: 0, spillStores: 0, spillLoads: 0 }])),
    diagnostics: [],
  };
}
