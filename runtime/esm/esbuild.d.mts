// Types of the ES module entry of `cudascript/esbuild`: the CommonJS build's (esm/esbuild.mjs re-exports it).
import { cudascriptPlugin } from "../dist/esbuild/index.js";
export * from "../dist/esbuild/index.js";
export default cudascriptPlugin;
