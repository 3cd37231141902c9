// `import cudascript from "cudascript/rspack"` gives the plugin factory, not the CommonJS module's exports object.
import cjs from "./rspack.js";
import type { cudascript as cudascriptType } from "./rspack.js";

export type { CudaScriptPluginOptions } from "./options.js";
export const cudascript: typeof cudascriptType = cjs.cudascript;
export default cudascript;
