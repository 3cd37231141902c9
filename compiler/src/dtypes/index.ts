/**
 * `@cudascript/compiler/dtypes`: the dtype table (table.ts). Like `…/occupancy`, it imports nothing else
 * of the compiler, so the runtime reads it without loading the front end or TypeScript.
 */
export * from "./table";
export * from "./records";
