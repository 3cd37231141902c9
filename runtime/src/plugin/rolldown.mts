// `import cudascript from "cudascript/rolldown"` gives the plugin factory, not the CommonJS module's exports object.
import cjs from "./rolldown.js";

export type { CudaScriptPluginOptions } from "./core.js";
export const cudascript = cjs.cudascript;
export default cudascript;
