// `import cudascript from "cudascript/rollup"` gives the plugin factory, not the CommonJS module's exports object.
import cjs from "./rollup.js";
import type { cudascript as cudascriptType } from "./rollup.js";

export type { CudaScriptPluginOptions } from "./options.js";
export const cudascript: typeof cudascriptType = cjs.cudascript;
export default cudascript;
