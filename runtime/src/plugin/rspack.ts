/**
 * `cudascript/rspack`: compiles kernels at build time in a rspack build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./rspack.mjs.
 */
import { cudascriptUnplugin } from "./core";

export type { CudaScriptPluginOptions } from "./core";
export const cudascript = cudascriptUnplugin().rspack;
export default cudascript;
