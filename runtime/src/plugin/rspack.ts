/**
 * `cudascript/rspack`: compiles kernels at build time in a rspack build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./rspack.mjs.
 */
import type { RspackPluginInstance } from "@rspack/core" with { "resolution-mode": "import" };
import { cudascriptUnplugin } from "./core";

import type { CudaScriptPluginOptions } from "./options";

export type { CudaScriptPluginOptions };
export const cudascript: (options?: CudaScriptPluginOptions) => RspackPluginInstance = cudascriptUnplugin().rspack;
export default cudascript;
