// `import cudascript from "cudascript/esbuild"` gives the plugin factory, not the CommonJS module's exports object.
import cjs from "./esbuild.js";

export type { CudaScriptPluginOptions } from "./core.js";
export const cudascript = cjs.cudascript;
export default cudascript;
export const cudascriptPlugin = cjs.cudascriptPlugin;
