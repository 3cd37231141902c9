/**
 * `cudascript/rollup`: compiles kernels at build time in a rollup build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./rollup.mjs.
 */
import { cudascriptUnplugin } from "./core";

export type { CudaScriptPluginOptions } from "./core";
export const cudascript = cudascriptUnplugin().rollup;
export default cudascript;
