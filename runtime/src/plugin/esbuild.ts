/**
 * `cudascript/esbuild`: compiles kernels at build time in a esbuild build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./esbuild.mjs.
 */
import type { Plugin } from "esbuild";
import { cudascriptUnplugin } from "./core";

import type { CudaScriptPluginOptions } from "./options";

export type { CudaScriptPluginOptions };
export const cudascript: (options?: CudaScriptPluginOptions) => Plugin = cudascriptUnplugin().esbuild;
export default cudascript;
/** The name this plugin had before every bundler got one. */
export const cudascriptPlugin = cudascript;
