/**
 * `cudascript/esbuild`: compiles kernels at build time in a esbuild build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./esbuild.mjs.
 */
import { cudascriptUnplugin } from "./core";

export type { CudaScriptPluginOptions } from "./core";
export const cudascript = cudascriptUnplugin().esbuild;
export default cudascript;
/** The name this plugin had before every bundler got one. */
export const cudascriptPlugin = cudascript;
