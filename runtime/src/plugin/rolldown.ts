/**
 * `cudascript/rolldown`: compiles kernels at build time in a rolldown build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./rolldown.mjs.
 */
import type { Plugin } from "rolldown" with { "resolution-mode": "import" };
import { cudascriptUnplugin } from "./core";

import type { CudaScriptPluginOptions } from "./options";

export type { CudaScriptPluginOptions };
export const cudascript: (options?: CudaScriptPluginOptions) => Plugin = cudascriptUnplugin().rolldown;
export default cudascript;
