/**
 * The CudaScript bundler plugin, one for every bundler (unplugin): for each TypeScript file that
 * imports "cudascript" it runs the front end and checker on the ORIGINAL TypeScript (the types are
 * needed, so this runs before any other transform strips them), fails the build on checker errors
 * (`file:line:col CSxxxx: message`), passes warnings on, and rewrites each `cuda.jit(fn, options)` into
 * `cuda.jit(fn, options, ARTIFACT, "name")` (runtime/src/build/kernel-file.ts). Files under
 * node_modules are compiled too: kernel libraries ship their .ts. For Node targets the runtime itself
 * stays external (./externals.ts).
 *
 * The entry points (`cudascript/esbuild`, `cudascript/vite`, …) are ./esbuild.ts and its siblings.
 */
import type { KernelChecker } from "@cudascript/compiler";
import type { CudaScriptPluginOptions } from "./options";
import type { UnpluginBuildContext, UnpluginContext, UnpluginContextMeta, UnpluginInstance, UnpluginOptions } from "unplugin" with { "resolution-mode": "import" };
import * as fs from "node:fs";
import { buildKernelFile, IMPORTS_CUDASCRIPT, loadCompiler, rewriteCompiledKernels, rewriteKernels } from "../build/kernel-file";
import { CudaScriptError } from "../errors";
import { embedPtx } from "./ptx";
import { typeScriptSourceOf } from "../host/from-source/source-map";
import { warningsSetting } from "../host/warnings-setting";
import { addLineText, combined, toMessage } from "./messages";
import { externalizeForEsbuild, externalizeForWebpack, viteExternals, withRuntimeExternal } from "./externals";

export type { CudaScriptPluginOptions };

/** TypeScript sources (not declaration files), with a bundler's `?query` suffix allowed. */
const TYPESCRIPT_FILE = /(?<!\.d)\.[cm]?tsx?(?:\?.*)?$/;

/** JavaScript of an installed package (a kernel library built by tsc). */
const LIBRARY_JAVASCRIPT = /[\\/]node_modules[\\/].*\.[cm]?js(?:\?.*)?$/;

/** Bundlers whose `this.error` throws, so only one error can be reported: all go in one message. */
const THROWING_ERROR = new Set(["rollup", "rolldown", "vite"]);

type Framework = UnpluginContextMeta["framework"];
type TransformContext = UnpluginBuildContext & UnpluginContext;

export function cudascriptUnpluginFactory(options: CudaScriptPluginOptions = {}, meta: UnpluginContextMeta): UnpluginOptions {
  let checker: KernelChecker | undefined;
  const framework: Framework = meta.framework;
  /** Said once the configuration is resolved, through Vite's logger (which honours `logLevel`). */
  let viteNote: string | undefined;
  return {
    name: "cudascript",
    enforce: "pre",
    transform: {
      filter: { id: { include: [TYPESCRIPT_FILE, LIBRARY_JAVASCRIPT] }, code: { include: [IMPORTS_CUDASCRIPT] } },
      async handler(this: TransformContext, code: string, id: string) {
        const file = id.replace(/\?.*$/, "");
        // Another plugin may have compiled the TypeScript already (@rollup/plugin-typescript loads tsc's
        // output): then the kernels are checked from the .ts on disk and the JavaScript is rewritten.
        // A kernel library's JavaScript (tsc's output under node_modules) is compiled from the TypeScript
        // its source map names; without one there is nothing to check and the file is left alone.
        let tsFile = file;
        if (!TYPESCRIPT_FILE.test(file)) {
          const original = typeScriptSourceOf(file, code);
          if (original === undefined) return undefined;
          tsFile = original;
        }
        const source = readText(tsFile);
        const compiled = source !== undefined && (tsFile !== file || (source !== code && !looksLikeTypeScriptOf(source, code)));
        const text = compiled ? source : code;
        // Loaded lazily: the front end (TypeScript) is only needed when kernels are built.
        const compiler = loadCompiler();
        checker ??= new compiler.KernelChecker();
        const built = buildKernelFile(checker, tsFile, text, { includeIr: options.includeIr });
        // Device functions imported from other files: a change there recompiles this file; so does a
        // file appearing where an import's resolution looked (c.ts beside the c/index.ts `./c` found).
        for (const dependency of [...built.dependencies, ...built.resolutionLookups]) this.addWatchFile(dependency);
        const warnings = options.warnings ?? (warningsSetting() === "error" ? "error" : true);
        if (warnings === true) for (const d of built.warnings) this.warn(toMessage(d, tsFile, text, framework !== "esbuild"));
        let errors = warnings === "error" ? [...built.errors, ...built.warnings.map((d) => ({ ...d, severity: "error" as const }))] : built.errors;
        let artifact = built.artifact;
        if (!errors.length && artifact && options.cudaArchs?.length) {
          const embedded = await embedPtx(compiler, built.check.module, options.cudaArchs, options.nvrtcPath);
          errors = embedded.errors;
          if (embedded.cuda) artifact = { ...artifact, cuda: embedded.cuda };
        }
        if (errors.length) {
          if (THROWING_ERROR.has(framework)) return this.error(combined(errors, tsFile, text));
          for (const d of errors) this.error(toMessage(d, tsFile, text, framework !== "esbuild"));
          // esbuild and webpack collect the errors; esbuild only reports them with a result.
          return { code, map: null };
        }
        if (!artifact) return { code, map: null };
        options.onArtifact?.(tsFile, artifact);
        // Lines keep their numbers (the artifact goes on the first line): no source map needed.
        return { code: compiled ? rewriteCompiledKernels(code, tsFile, artifact) : rewriteKernels(text, built.check, checker, artifact), map: null };
      },
    },
    esbuild: {
      // Without it unplugin's esbuild adapter calls back into JavaScript for every file of the build.
      onLoadFilter: /\.[cm]?tsx?$|[\\/]node_modules[\\/].*\.[cm]?js$/, // Go regular expression syntax: no lookbehind
      config(buildOptions) {
        externalizeForEsbuild(buildOptions);
      },
      setup(build) {
        // unplugin passes a message's file, line and column to esbuild but not the line's text.
        build.onEnd((result) => [...result.errors, ...result.warnings].forEach(addLineText));
      },
    },
    vite: {
      config(config) {
        return viteExternals(config, (note) => (viteNote = note));
      },
      configResolved(config) {
        if (viteNote) config.logger.warnOnce(viteNote);
      },
    },
    rollup: {
      // Typed loosely: rollup's types come with rollup, which the runtime does not depend on.
      options(inputOptions: { external?: unknown }) {
        return { ...inputOptions, external: withRuntimeExternal(inputOptions.external as never) } as never;
      },
    },
    rolldown: {
      options(inputOptions) {
        if (inputOptions.platform === "browser") return null;
        return { ...inputOptions, external: withRuntimeExternal(inputOptions.external as never) as never };
      },
    },
    webpack(compiler) {
      externalizeForWebpack(compiler as never);
    },
    rspack(compiler) {
      externalizeForWebpack(compiler as never);
    },
  };
}

let instance: UnpluginInstance<CudaScriptPluginOptions | undefined, false> | undefined;

/** The plugin for every bundler. */
export function cudascriptUnplugin(): UnpluginInstance<CudaScriptPluginOptions | undefined, false> {
  return (instance ??= loadUnplugin().createUnplugin(cudascriptUnpluginFactory));
}

/** unplugin is an ES module: `require` loads it from Node.js 20.19 on, older versions refuse. */
function loadUnplugin(): typeof import("unplugin", { with: { "resolution-mode": "import" } }) {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require("unplugin");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ERR_REQUIRE_ESM") throw e;
    throw new CudaScriptError(
      "CSR054",
      `the CudaScript bundler plugins need Node.js 20.19 or newer (they load unplugin, an ES module, with require), and this is Node.js ${process.versions.node}: upgrade Node.js, or build with 'npx cudascript run file.ts'`,
    );
  }
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined; // a virtual module: what the bundler passed is all there is
  }
}

/** Whether `code` is still the TypeScript of `source`, up to a BOM and line endings a bundler may normalise. */
function looksLikeTypeScriptOf(source: string, code: string): boolean {
  const strip = (s: string) => s.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  return strip(source) === strip(code);
}
