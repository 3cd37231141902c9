/**
 * The runtime stays outside the bundle for Node targets. Bundled, it breaks: koffi's native module
 * (the GPU backend) and the simulator's worker script (runtime/dist/simulator/worker.js) are looked
 * up next to the runtime's own files, so a bundle silently falls back to no GPU and one thread (and
 * weighs ~15 MB). External, `require("cudascript")` / `import "cudascript"` loads the installed package.
 * Each bundler has its own switch; these functions set it from the plugin's bundler-specific hooks.
 */

/** `cudascript`, its subpaths (`cudascript/vite`, …) and the `@cudascript/*` packages it loads. */
export const RUNTIME_REQUEST = /^(?:cudascript|@cudascript\/[^/]+)(?:\/.*)?$/;
/** The same, as package names (Vite's `ssr.external` takes names, not patterns). */
export const RUNTIME_PACKAGES = ["cudascript", "@cudascript/compiler", "@cudascript/native-bindings"];

export const BUNDLE_NOTE =
  "cudascript: the runtime (cudascript, @cudascript/*) stays external although the build asks to bundle it: bundled, it finds neither koffi (GPU) nor its simulator worker threads.";

/** esbuild: `external` patterns, for `platform: "node"` (esbuild's default platform is the browser). */
export function externalizeForEsbuild(options: { platform?: string; external?: string[] }): void {
  if (options.platform !== "node") return;
  options.external = [...(options.external ?? []), "cudascript", "cudascript/*", "@cudascript/*"];
}

type RollupExternal = string | RegExp | (string | RegExp)[] | ((id: string, importer: string | undefined, isResolved: boolean) => unknown) | undefined;

/** rollup/rolldown `external` (a string, a pattern, a list of them or a function) plus the runtime. */
export function withRuntimeExternal(external: RollupExternal): RollupExternal {
  if (typeof external === "function") return (id, importer, isResolved) => RUNTIME_REQUEST.test(id) || external(id, importer, isResolved);
  const list = external === undefined ? [] : Array.isArray(external) ? external : [external];
  return [...list, RUNTIME_REQUEST];
}

interface ViteUserConfig {
  ssr?: { noExternal?: string | RegExp | (string | RegExp)[] | true };
}

/**
 * Vite: `ssr.external` (SSR builds are Vite's Node builds; explicit `ssr.external` wins over
 * `ssr.noExternal`). A linked or workspace copy of the runtime is not under node_modules, so Vite
 * would bundle it without this.
 */
export function viteExternals(config: ViteUserConfig, note: (text: string) => void): { ssr: { external: string[] } } {
  const noExternal = config.ssr?.noExternal;
  const asked = noExternal === true || [noExternal].flat().some((p) => p !== undefined && RUNTIME_PACKAGES.some((name) => (typeof p === "string" ? p === name : p.test(name))));
  if (asked) note(BUNDLE_NOTE);
  return { ssr: { external: RUNTIME_PACKAGES } };
}

/** The parts of a webpack or Rspack compiler this uses (both have the same shape). */
interface WebpackLikeCompiler {
  options: { externalsPresets?: { node?: boolean }; output?: { module?: boolean } };
  platform?: { node?: boolean | null };
  webpack: { ExternalsPlugin: new (type: string, externals: unknown) => { apply(compiler: unknown): void } };
}

/**
 * webpack and Rspack: an externals function, so the target is known when it runs (the defaults that
 * derive `externalsPresets.node` from `target` are applied after plugins). CommonJS output requires
 * the runtime; ES module output loads it with `createRequire` ("node-commonjs"), since the runtime is
 * a CommonJS package.
 */
export function externalizeForWebpack(compiler: WebpackLikeCompiler): void {
  const externals = (data: { request?: string }, callback: (err?: Error | null, result?: string) => void): void => {
    const request = data.request;
    const node = compiler.options.externalsPresets?.node === true || compiler.platform?.node === true;
    if (!node || request === undefined || !RUNTIME_REQUEST.test(request)) return callback();
    callback(null, `${compiler.options.output?.module ? "node-commonjs" : "commonjs"} ${request}`);
  };
  // The type in each result wins; Rspack requires a default one all the same.
  new compiler.webpack.ExternalsPlugin("commonjs", externals).apply(compiler);
}
