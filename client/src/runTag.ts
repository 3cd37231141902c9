/**
 * The `@run` tag parser and the host program "Run Kernel" generates live in the runtime package
 * (runtime/src/run-tag), which the debug adapter's `{ program, kernel }` launch uses too.
 */
export * from "cudascript/dist/run-tag/index";
