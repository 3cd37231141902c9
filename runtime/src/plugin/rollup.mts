// `import cudascript from "cudascript/rollup"` gives the plugin factory, not the CommonJS module's exports object.
import cjs from "./rollup.js";

export type { CudaScriptPluginOptions } from "./core.js";
export const cudascript = cjs.cudascript;
export default cudascript;
