/**
 * `cudascript/rollup`: compiles kernels at build time in a rollup build (./core.ts says what it does).
 * Default export and `cudascript` are the same plugin factory; ESM importers get ./rollup.mjs.
 */
import { cudascriptUnplugin } from "./core";

/** A rollup plugin (rollup's own `Plugin` type, structurally: rollup is not a dependency of cudascript). */
export interface RollupPlugin {
  readonly name: string;
}

import type { CudaScriptPluginOptions } from "./options";

export type { CudaScriptPluginOptions };
export const cudascript: (options?: CudaScriptPluginOptions) => RollupPlugin = cudascriptUnplugin().rollup as never;
export default cudascript;
