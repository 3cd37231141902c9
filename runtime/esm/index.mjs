// The ES module entry of `cudascript`: the CommonJS build re-exported (Node finds its named exports
// statically), so `import` and `require` in one process share one runtime — one backend, one set of
// loaded kernels — instead of two copies (the dual-package hazard).
export * from "../dist/index.js";
export { default } from "../dist/index.js";
