/**
 * `cudascript/vite`: compiles kernels at build time in a vite build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./vite.mjs.
 */
import { cudascriptUnplugin } from "./core";

export type { CudaScriptPluginOptions } from "./core";
export const cudascript = cudascriptUnplugin().vite;
export default cudascript;
