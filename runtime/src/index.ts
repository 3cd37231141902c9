export * from "./public-api";

import * as cudascript from "./public-api";
/**
 * `import cudascript from "cudascript"` is the namespace of the named exports (`cudascript.cuda`,
 * `cudascript.f32`, …) whatever the consumer: Node's ESM (the default of a CommonJS module is its
 * `module.exports`), TypeScript's `esModuleInterop` and bundlers (which read `exports.default`) agree.
 */
export default cudascript;
