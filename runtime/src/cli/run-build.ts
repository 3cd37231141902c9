/**
 * The build of `cudascript run`: the host program bundled by esbuild with the CudaScript plugin
 * (kernels compiled at build time). esbuild and the plugin (which loads the compiler) are loaded only
 * when this builds: a run whose build is reused from the cache (run-cache.ts) loads neither.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { Message, Metafile, Plugin } from "esbuild";
import type { CudaScriptPluginOptions } from "../plugin/esbuild";
import type { BuiltBundle } from "./run-cache";
import { loadCompiler } from "../build/kernel-file";
import { writeAtomically } from "../host/cache-files";
import { formatBuildMessages } from "./build-messages";
import { useColor } from "./color";
import { ESM_REQUIRE_BANNER } from "./typescript-hooks";

/**
 * esbuild cannot build here: its package or its binary for this platform is not installed (the VS Code
 * extension's bundled CLI ships without it; `npm install --omit=optional` leaves the binary out).
 * `cudascript run` then runs the program from its TypeScript source (typescript-hooks.ts).
 */
export class EsbuildUnavailable extends Error {
  constructor(cause: unknown) {
    const why = String((cause as Error | undefined)?.message ?? cause).split("\n").find((line) => line.trim())?.trim();
    super(`esbuild for ${process.platform}-${process.arch} is not installed here (${why})`);
    this.name = "EsbuildUnavailable";
  }
}

/** Bundles `entry` (TypeScript) with the kernels compiled; prints errors and returns false on failure. */
export async function buildProgram(entry: string, outfile: string, pluginOptions: CudaScriptPluginOptions = {}): Promise<boolean> {
  let built: BuiltBundle | undefined;
  try {
    built = await bundleProgram(entry, outfile, pluginOptions);
  } catch (e) {
    if (!(e instanceof EsbuildUnavailable)) throw e;
    console.error(`cudascript: ${path.relative(process.cwd(), entry) || entry} was not built: ${e.message}. Install cudascript in the program's project with npm (npm install --save-dev cudascript), which installs esbuild for this platform; do not pass --omit=optional.`);
    return false;
  }
  if (!built) return false;
  const failed = writeAtomically(outfile, built.contents);
  if (failed) console.error(`cudascript: cannot write ${outfile} (${failed})`);
  return failed === undefined;
}

/**
 * Bundles `entry` in memory as if written to `outfile` (the source map's paths are relative to its
 * folder), and lists every file the bundle depends on. Prints the build's warnings and errors;
 * undefined when it failed; throws EsbuildUnavailable when esbuild cannot run here.
 */
export async function bundleProgram(entry: string, outfile: string, pluginOptions: CudaScriptPluginOptions = {}): Promise<BuiltBundle | undefined> {
  const startedAt = Date.now();
  let esbuild: typeof import("esbuild");
  try {
    esbuild = await import("esbuild");
  } catch (e) {
    throw new EsbuildUnavailable(e);
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { cudascriptPlugin } = require("../plugin/esbuild") as typeof import("../plugin/esbuild");
  const runtimeEntry = path.join(__dirname, "..", "index.js");
  const dependencies = new Set<string>();
  try {
    const building = esbuild.build({
      entryPoints: [entry],
      outfile,
      write: false,
      metafile: true,
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      sourcemap: "inline",
      sourcesContent: false,
      logLevel: "silent",
      banner: { js: ESM_REQUIRE_BANNER },
      plugins: [
        {
          // The program uses the runtime this CLI belongs to.
          name: "cudascript-runtime",
          setup(b) {
            b.onResolve({ filter: /^cudascript$/ }, () => ({ path: runtimeEntry, external: true }));
          },
        },
        recordingWatchFiles(cudascriptPlugin(pluginOptions), dependencies),
      ],
    });
    // esbuild's process starts and parses the program meanwhile: the plugin needs the compiler for the
    // first kernel file, and loading it (TypeScript included) is the longest step of a build.
    try {
      loadCompiler();
    } catch {
      // The plugin reports it, as a build error of the file that needs it.
    }
    const result = await building;
    const warnings = {
      plain: formatBuildMessages(result.warnings, "warning", false),
      color: formatBuildMessages(result.warnings, "warning", true),
    };
    process.stderr.write(useColor(process.stderr) ? warnings.color : warnings.plain);
    const cwd = process.cwd();
    // esbuild names inputs relative to its working folder; a "namespace:" prefix marks a virtual module, which has no file.
    const inputs = Object.keys(result.metafile.inputs)
      .filter((input) => !/^[a-z-]+:/.test(input))
      .map((input) => path.resolve(cwd, input));
    // The plugin's watch files that do not exist are where the kernel checker's import resolution looked in vain.
    const lookups = [...esbuildLookups(result.metafile, cwd), ...[...dependencies].filter((f) => !fs.existsSync(f))];
    return { contents: result.outputFiles[0]!.contents, inputs: [...new Set([...inputs, ...dependencies])].filter((f) => !lookups.includes(f)), lookups, warnings, startedAt };
  } catch (e) {
    const failure = e as { errors?: Message[]; warnings?: Message[] };
    if (!failure.errors && esbuildBinaryMissing(e)) throw new EsbuildUnavailable(e);
    if (!failure.errors) throw e;
    const color = useColor(process.stderr);
    process.stderr.write(formatBuildMessages(failure.warnings ?? [], "warning", color) + formatBuildMessages(failure.errors, "error", color));
    console.error(`cudascript: ${path.relative(process.cwd(), entry) || entry} was not run: ${failure.errors.length} error${failure.errors.length === 1 ? "" : "s"}.`);
    return undefined;
  }
}

/** esbuild's default resolveExtensions, in its order. */
const RESOLVE_EXTENSIONS = [".tsx", ".ts", ".jsx", ".js", ".css", ".json"];

/**
 * Paths that do not exist and would change what one of the bundle's imports resolves to if they
 * appeared: for `./c` (found as c/index.ts) the files c, c.ts, c.js…, c/package.json; for a package
 * found in an outer node_modules, the package.json (and `<name>.js`…) of each nearer node_modules.
 * A superset of what esbuild tried: one appearing that would not have changed anything only costs a build.
 */
function esbuildLookups(metafile: Metafile, cwd: string): string[] {
  const lookups = new Set<string>();
  const withExtensions = (base: string) => [base, ...RESOLVE_EXTENSIONS.map((ext) => base + ext)];
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    if (/^[a-z-]+:/.test(input)) continue;
    const importer = path.resolve(cwd, input);
    for (const imp of imports) {
      if (imp.external || !imp.original || /^[a-z-]+:/.test(imp.path)) continue;
      const resolved = path.resolve(cwd, imp.path);
      const candidates: string[] = [];
      if (/^\.\.?(\/|$)|^\//.test(imp.original)) {
        const base = path.resolve(path.dirname(importer), imp.original);
        candidates.push(...withExtensions(base), path.join(base, "package.json"), ...withExtensions(path.join(base, "index")));
        // esbuild also finds `./x.ts` for `./x.js`.
        const stripped = base.replace(/\.[mc]?jsx?$/, "");
        if (stripped !== base) candidates.push(...[".ts", ".tsx", ".mts", ".cts"].map((ext) => stripped + ext));
      } else {
        const name = imp.original.split("/").slice(0, imp.original.startsWith("@") ? 2 : 1).join("/");
        for (let dir = path.dirname(importer); ; dir = path.dirname(dir)) {
          const pkg = path.join(dir, "node_modules", name);
          if (resolved.startsWith(pkg + path.sep) || path.dirname(dir) === dir) break;
          candidates.push(path.join(pkg, "package.json"), ...withExtensions(pkg).slice(1), ...withExtensions(path.join(pkg, "index")).slice(1));
        }
      }
      for (const candidate of candidates) if (candidate !== resolved && !fs.existsSync(candidate)) lookups.add(candidate);
    }
  }
  return [...lookups];
}

/**
 * esbuild's JavaScript loads, then starts its platform binary (the `@esbuild/<platform>` package) on the
 * first build: either may be missing when a copy of the CLI was packed for another platform or
 * installed with --omit=optional.
 */
function esbuildBinaryMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND" || /"@esbuild\/[\w-]+" could not be found|esbuild.*(for another platform|could not be found)/.test(String((e as Error | undefined)?.message));
}

/**
 * The plugin, also collecting the files each of its loads says the output depends on (`watchFiles`:
 * the files the kernel checker read), which esbuild's metafile does not list: a type-only import is
 * dropped from the bundle, yet a type alias there can change a kernel.
 */
function recordingWatchFiles(plugin: Plugin, into: Set<string>): Plugin {
  return {
    name: plugin.name,
    setup(build) {
      const onLoad: typeof build.onLoad = (options, callback) =>
        build.onLoad(options, async (args) => {
          const result = await callback(args);
          for (const file of result?.watchFiles ?? []) into.add(file);
          return result;
        });
      return plugin.setup(new Proxy(build, { get: (target, key, receiver) => (key === "onLoad" ? onLoad : Reflect.get(target, key, receiver)) }));
    },
  };
}
