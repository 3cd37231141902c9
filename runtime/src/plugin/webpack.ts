/**
 * `cudascript/webpack`: compiles kernels at build time in a webpack build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./webpack.mjs.
 */
import { cudascriptUnplugin } from "./core";

export type { CudaScriptPluginOptions } from "./core";
export const cudascript = cudascriptUnplugin().webpack;
export default cudascript;
