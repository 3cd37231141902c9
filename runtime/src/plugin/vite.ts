/**
 * `cudascript/vite`: compiles kernels at build time in a vite build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./vite.mjs.
 */
import type { Plugin } from "vite" with { "resolution-mode": "import" };
import { cudascriptUnplugin } from "./core";

import type { CudaScriptPluginOptions } from "./options";

export type { CudaScriptPluginOptions };
export const cudascript: (options?: CudaScriptPluginOptions) => Plugin = cudascriptUnplugin().vite;
export default cudascript;
