/**
 * `cudascript/esbuild`: the esbuild plugin that compiles kernels at build time.
 *
 * For every TypeScript file that imports "cudascript" it runs the CudaScript front end and checker
 * (the TypeScript types are needed, so this cannot happen at run time), reports checker errors as
 * esbuild errors with file and line, and rewrites each `cuda.jit(fn, options)` into
 * `cuda.jit(fn, options, ARTIFACT, "name")`, where ARTIFACT (a constant added to the file) holds the
 * compiled kernels: the simulator's JavaScript (plain and sanitizing), the kernels' signatures and the
 * serialised IR (for the GPU backend). Kernels built without the plugin compile from their source at
 * their first launch when its source maps lead back to it (runtime/src/host/from-source), else CSR051.
 *
 *   import { build } from "esbuild";
 *   import { cudascriptPlugin } from "cudascript/esbuild";
 *   await build({ entryPoints: ["main.ts"], bundle: true, platform: "node", plugins: [cudascriptPlugin()] });
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Loader, PartialMessage, Plugin } from "esbuild";
import type { Diagnostic, FileCheck, KernelArtifact, KernelChecker } from "@cudascript/compiler";
import { buildKernelFile, IMPORTS_CUDASCRIPT, loadCompiler, rewriteKernels } from "../build/kernel-file";

export interface CudaScriptPluginOptions {
  /** Reuse a checker (incremental rebuilds in watch mode keep one per plugin instance anyway). */
  readonly checker?: KernelChecker;
  /** Report checker warnings as esbuild warnings (default true). */
  readonly warnings?: boolean;
  /** Embed the serialised IR in the artifact (default true; the GPU backend needs it). */
  readonly includeIr?: boolean;
  /** Called with each file's artifact (tools, tests). */
  readonly onArtifact?: (file: string, artifact: KernelArtifact) => void;
  /**
   * Also compile the kernels to PTX for these GPUs ("sm_86", …) with NVRTC at build time and embed
   * it in the artifact's `cuda` field, so that the GPU backend loads it without compiling (and an
   * NVRTC error fails the build with the TypeScript location). The PTX target is the GPU's own
   * `compute_XY`, or the newest one NVRTC supports below it. Without NVRTC nothing is embedded and
   * the GPU backend compiles at load time. `cudascript run` passes the GPU it runs on.
   */
  readonly cudaArchs?: readonly string[];
  /** NVRTC library for `cudaArchs` (default: discovered). */
  readonly nvrtcPath?: string;
}

export function cudascriptPlugin(options: CudaScriptPluginOptions = {}): Plugin {
  return {
    name: "cudascript",
    setup(build) {
      let checker = options.checker;
      build.onLoad({ filter: /\.(?:c|m)?tsx?$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const text = await fs.promises.readFile(args.path, "utf8");
        if (!IMPORTS_CUDASCRIPT.test(text)) return undefined;
        // Loaded lazily: the front end (ts-morph, TypeScript) is only needed when kernels are built.
        const compiler = loadCompiler();
        checker ??= new compiler.KernelChecker();
        const built = buildKernelFile(checker, args.path, text, { includeIr: options.includeIr });
        const loader = loaderFor(args.path);
        const errors = built.errors.map((d) => toMessage(d, text));
        const warnings = options.warnings === false ? [] : built.warnings.map((d) => toMessage(d, text));
        if (errors.length) return { errors, warnings };
        let artifact = built.artifact;
        if (!artifact) return { contents: text, loader, warnings };
        if (options.cudaArchs?.length) {
          const embedded = await embedPtx(compiler, built.check.module, options.cudaArchs, options.nvrtcPath);
          if (embedded.errors.length) return { errors: embedded.errors.map((d) => toMessage(d, text)), warnings };
          if (embedded.cuda) artifact = { ...artifact, cuda: embedded.cuda };
        }
        options.onArtifact?.(args.path, artifact);
        const contents = rewriteKernels(text, built.check, checker, artifact);
        return { contents, loader, warnings, watchFiles: [...built.dependencies] };
      });
    },
  };
}

export default cudascriptPlugin;

type Compiler = typeof import("@cudascript/compiler");

/**
 * PTX for each GPU architecture, keyed "compute_XY" ("compute_XY#1", … when kernels with different
 * options make several modules): the layout runtime/src/gpu/compile.ts reads.
 */
async function embedPtx(
  compiler: Compiler,
  module: FileCheck["module"],
  archs: readonly string[],
  nvrtcPath: string | undefined,
): Promise<{ cuda?: NonNullable<KernelArtifact["cuda"]>; errors: Diagnostic[] }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const nb = require("@cudascript/native-bindings") as typeof import("@cudascript/native-bindings");
  const load = nb.loadNvrtc(nvrtcPath !== undefined ? { path: nvrtcPath } : {});
  if (!load.ok) return { errors: [] }; // the GPU backend compiles at load time (and says what to install)
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

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

function loaderFor(file: string): Loader {
  return file.endsWith("x") ? "tsx" : "ts";
}

function toMessage(d: Diagnostic, text: string): PartialMessage {
  const lineText = text.split(/\r?\n/)[d.span.line - 1] ?? "";
  return {
    id: d.code,
    text: `${d.code}: ${d.message}`,
    location: {
      file: d.span.file,
      line: d.span.line,
      column: Math.max(0, d.span.col - 1),
      length: Math.max(1, Math.min(d.span.end - d.span.start, lineText.length - (d.span.col - 1))),
      lineText,
    },
    notes: d.related.map((r) => ({
      text: r.message,
      // A related location may be in another file (an imported device function): show its line too.
      location: { file: r.span.file, line: r.span.line, column: Math.max(0, r.span.col - 1), lineText: (r.span.file === d.span.file ? text : readOrEmpty(r.span.file)).split(/\r?\n/)[r.span.line - 1] ?? "" },
    })),
  };
}

export { rewriteKernels };
