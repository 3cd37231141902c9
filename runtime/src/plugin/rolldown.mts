// `import cudascript from "cudascript/rolldown"` gives the plugin factory, not the CommonJS module's exports object.
import cjs from "./rolldown.js";
import type { cudascript as cudascriptType } from "./rolldown.js";

export type { CudaScriptPluginOptions } from "./options.js";
export const cudascript: typeof cudascriptType = cjs.cudascript;
export default cudascript;
