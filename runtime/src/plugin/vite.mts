// `import cudascript from "cudascript/vite"` gives the plugin factory, not the CommonJS module's exports object.
import cjs from "./vite.js";
import type { cudascript as cudascriptType } from "./vite.js";

export type { CudaScriptPluginOptions } from "./options.js";
export const cudascript: typeof cudascriptType = cjs.cudascript;
export default cudascript;
