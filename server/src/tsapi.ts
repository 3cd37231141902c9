/**
 * The TypeScript API the checker itself uses. The compiler parses with ts-morph's bundled TypeScript;
 * syntax kinds and node shapes must come from that same instance, so it is loaded through the
 * compiler's own dependency resolution rather than from whatever `typescript` happens to be installed.
 */
import * as path from "node:path";
import type * as tsMorph from "ts-morph";

function load(): typeof tsMorph.ts {
  const compilerDir = path.dirname(require.resolve("@cudascript/compiler/package.json"));
  const tsMorphPath = require.resolve("ts-morph", { paths: [compilerDir] });
  return (require(tsMorphPath) as typeof tsMorph).ts;
}

export const ts = load();
export type { ts as TS } from "ts-morph";
