// Types of the ES module entry: exactly the CommonJS build's (esm/index.mjs re-exports it).
export * from "../dist/index.js";
export { default } from "../dist/index.js";
