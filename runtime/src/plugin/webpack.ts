/**
 * `cudascript/webpack`: compiles kernels at build time in a webpack build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./webpack.mjs.
 */
import type { WebpackPluginInstance } from "webpack";
import { cudascriptUnplugin } from "./core";

import type { CudaScriptPluginOptions } from "./options";

export type { CudaScriptPluginOptions };
export const cudascript: (options?: CudaScriptPluginOptions) => WebpackPluginInstance = cudascriptUnplugin().webpack;
export default cudascript;
