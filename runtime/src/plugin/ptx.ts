/**
 * PTX embedded at build time (the `cudaArchs` plugin option; `cudascript run` passes the GPU it runs
 * on), so that the GPU backend loads it without compiling and an NVRTC error fails the build.
 */
import type { Diagnostic, FileCheck, KernelArtifact } from "@cudascript/compiler";

type Compiler = typeof import("@cudascript/compiler");

/**
 * PTX for each GPU architecture, keyed "compute_XY" ("compute_XY#1", … when kernels with different
 * options make several modules): the layout runtime/src/gpu/compile.ts reads. The PTX target is the
 * GPU's own `compute_XY`, or the newest one NVRTC supports below it. Without NVRTC nothing is embedded
 * (the GPU backend compiles at load time and says what to install).
 */
export async function embedPtx(
  compiler: Compiler,
  module: FileCheck["module"],
  archs: readonly string[],
  nvrtcPath: string | undefined,
): Promise<{ cuda?: NonNullable<KernelArtifact["cuda"]>; errors: Diagnostic[] }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const nb = require("@cudascript/native-bindings") as typeof import("@cudascript/native-bindings");
  const load = nb.loadNvrtc(nvrtcPath !== undefined ? { path: nvrtcPath } : {});
  if (!load.ok) return { errors: [] };
  const supported = load.nvrtc.info.supportedArchs;
  const ptx: Record<string, string> = {};
  let source: string | undefined;
  for (const arch of archs) {
    const cc = compiler.parseComputeCapability(arch);
    if (cc === undefined) continue;
    const target = supported.includes(cc) ? cc : Math.max(-1, ...supported.filter((a) => a <= cc));
    if (target < 0 || ptx[`compute_${target}`] !== undefined) continue;
    const out = await compiler.compileModule(module, { arch: `compute_${target}`, emit: ["ptx"], ...(nvrtcPath !== undefined ? { nvrtcPath } : {}) });
    if (!out.ok) return { errors: out.diagnostics.filter((d) => d.severity === "error") };
    source ??= out.cuda.source;
    out.modules.forEach((m, i) => {
      if (m.ptx !== undefined) ptx[i === 0 ? `compute_${target}` : `compute_${target}#${i}`] = m.ptx;
    });
  }
  return Object.keys(ptx).length ? { cuda: { ...(source !== undefined ? { source } : {}), ptx }, errors: [] } : { errors: [] };
}
