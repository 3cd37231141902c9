/**
 * `cudascript/rolldown`: compiles kernels at build time in a rolldown build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./rolldown.mjs.
 */
import { cudascriptUnplugin } from "./core";

export type { CudaScriptPluginOptions } from "./core";
export const cudascript = cudascriptUnplugin().rolldown;
export default cudascript;
