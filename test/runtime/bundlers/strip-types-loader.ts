/**
 * The TypeScript loader of the webpack test: esbuild's type stripping, which is what esbuild-loader
 * does (ts-loader and esbuild-loader are not installed here). The CudaScript plugin's loader runs
 * before it ("pre"), on the original TypeScript.
 */
import { transformSync } from "esbuild";

export = function stripTypes(this: { resourcePath: string }, source: string): string {
  return transformSync(source, { loader: this.resourcePath.endsWith("x") ? "tsx" : "ts", format: "esm", sourcefile: this.resourcePath }).code;
};
