// The ES module entry of `cudascript/esbuild`: the CommonJS build re-exported (one instance; see
// index.mjs). Its default is the plugin factory, as for a CommonJS consumer's `import plugin from`.
import { cudascriptPlugin } from "../dist/esbuild/index.js";
export * from "../dist/esbuild/index.js";
export default cudascriptPlugin;
