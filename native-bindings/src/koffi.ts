// koffi ships "type": "module" typings, which a CommonJS TypeScript file may not `import`
// (TS1479) although `require("koffi")` works at run time (it has a CJS entry). So: take the types
// with an import-mode type import and the value with a plain require.
import type * as Koffi from "koffi" with { "resolution-mode": "import" };

export type KoffiModule = typeof Koffi;
export type TypeObject = Koffi.TypeObject;
export type LibraryHandle = Koffi.LibraryHandle;

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const koffi: KoffiModule = require("koffi") as KoffiModule;
