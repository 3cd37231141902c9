// `import cudascript from "cudascript/esbuild"` gives the plugin factory, not the CommonJS module's exports object.
import cjs from "./esbuild.js";
import type { cudascript as cudascriptType, cudascriptPlugin as cudascriptPluginType } from "./esbuild.js";

export type { CudaScriptPluginOptions } from "./options.js";
export const cudascript: typeof cudascriptType = cjs.cudascript;
export default cudascript;
export const cudascriptPlugin: typeof cudascriptPluginType = cjs.cudascriptPlugin;
