// `import cudascript from "cudascript/rspack"` gives the plugin factory, not the CommonJS module's exports object.
import cjs from "./rspack.js";

export type { CudaScriptPluginOptions } from "./core.js";
export const cudascript = cjs.cudascript;
export default cudascript;
