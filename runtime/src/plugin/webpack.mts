// `import cudascript from "cudascript/webpack"` gives the plugin factory, not the CommonJS module's exports object.
import cjs from "./webpack.js";
import type { cudascript as cudascriptType } from "./webpack.js";

export type { CudaScriptPluginOptions } from "./options.js";
export const cudascript: typeof cudascriptType = cjs.cudascript;
export default cudascript;
