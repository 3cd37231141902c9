/**
 * Node's module customization hooks (`module.register`) for `cudascript run` when esbuild is not
 * installed (the VS Code extension's bundled CLI ships without it, and `npm install --omit=optional`
 * leaves it out): the program runs from its TypeScript source, as tsx would run it. Each .ts/.mts file
 * is transpiled by TypeScript (`transpileModule`: types removed, no type check) to an ES module with an
 * inline source map, so stack traces, and the kernels' call sites, name the TypeScript lines; its
 * kernels have no build-time artifact and compile from that source at their first launch
 * (host/from-source). `import "cudascript"` is the runtime this CLI belongs to, as in a bundled run;
 * `./x.js` / `./x` find `./x.ts` as TypeScript's module resolution does.
 *
 * Runs in Node's hooks thread: it loads the compiler's TypeScript there (the program's thread loads
 * its own copy when the first kernel compiles).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ts as TypeScript } from "@cudascript/compiler";
import { CudaScriptError } from "../errors";

interface ResolveContext {
  readonly parentURL?: string;
  readonly conditions?: readonly string[];
}
interface ResolveResult {
  readonly url: string;
  readonly format?: string | null;
  readonly shortCircuit?: boolean;
}
interface LoadResult {
  readonly format: string;
  readonly source?: string | ArrayBuffer | Uint8Array;
  readonly shortCircuit?: boolean;
}
type NextResolve = (specifier: string, context?: ResolveContext) => Promise<ResolveResult>;
type NextLoad = (url: string, context?: { format?: string | null }) => Promise<LoadResult>;

/** The runtime this CLI belongs to (dist/index.js beside dist/cli/), as `cudascript run`'s bundles use. */
const RUNTIME_URL = pathToFileURL(path.join(__dirname, "..", "index.js")).href;

/** A TypeScript module: transpiled here; as `cudascript run`'s program, it runs from source (run-program.ts). */
export const TYPESCRIPT_FILE = /\.[cm]?ts$/;

let compilerModule: typeof import("@cudascript/compiler") | undefined;
function compiler(): typeof import("@cudascript/compiler") {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (compilerModule ??= require("@cudascript/compiler") as typeof import("@cudascript/compiler"));
}

/** What a relative import that finds no file may mean in TypeScript: `./x.js` is `./x.ts`, `./x` is `./x.ts` or `./x/index.ts`. */
export function typescriptTwins(specifier: string): string[] {
  const m = /^(.*?)\.([cm]?)js$/.exec(specifier);
  if (m) return [`${m[1]}.${m[2]}ts`];
  if (TYPESCRIPT_FILE.test(specifier)) return [];
  return [`${specifier}.ts`, `${specifier}.mts`, `${specifier}/index.ts`];
}

export async function resolve(specifier: string, context: ResolveContext, nextResolve: NextResolve): Promise<ResolveResult> {
  if (specifier === "cudascript") return { url: RUNTIME_URL, shortCircuit: true };
  try {
    return await nextResolve(specifier, context);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const relative = specifier.startsWith("./") || specifier.startsWith("../") || specifier.startsWith("/") || specifier.startsWith("file:");
    if (!relative || (code !== "ERR_MODULE_NOT_FOUND" && code !== "ERR_UNSUPPORTED_DIR_IMPORT")) throw e;
    for (const twin of typescriptTwins(specifier)) {
      try {
        return await nextResolve(twin, context);
      } catch {
        // not this one
      }
    }
    throw e;
  }
}

export async function load(url: string, context: { format?: string | null }, nextLoad: NextLoad): Promise<LoadResult> {
  if (!url.startsWith("file:") || !TYPESCRIPT_FILE.test(new URL(url).pathname)) return nextLoad(url, context);
  const file = fileURLToPath(url);
  const commonjs = file.endsWith(".cts");
  return { format: commonjs ? "commonjs" : "module", source: transpile(file, fs.readFileSync(file, "utf8"), commonjs), shortCircuit: true };
}

/** TypeScript to JavaScript, types removed, with an inline source map; throws CSR055 naming the first syntax error's line. */
export function transpile(file: string, text: string, commonjs = false): string {
  const t = compiler().ts;
  const shown = path.relative(process.cwd(), file) || file;
  let out: TypeScript.TranspileOutput;
  try {
    out = t.transpileModule(text, {
      fileName: file,
      reportDiagnostics: true,
      compilerOptions: {
        module: commonjs ? t.ModuleKind.CommonJS : t.ModuleKind.ESNext,
        target: t.ScriptTarget.ES2022,
        esModuleInterop: true,
        inlineSourceMap: true,
        inlineSources: false,
      },
    });
  } catch (e) {
    if (!compiler().isStackOverflow(e)) throw e;
    throw tooDeeplyNested(text, shown);
  }
  const error = out.diagnostics?.find((d) => d.category === t.DiagnosticCategory.Error);
  if (error) {
    const at = error.file && error.start !== undefined ? error.file.getLineAndCharacterOfPosition(error.start) : undefined;
    const where = at ? `${shown}:${at.line + 1}:${at.character + 1}` : shown;
    throw new CudaScriptError("CSR055", `${where} - error TS${error.code}: ${t.flattenDiagnosticMessageText(error.messageText, "\n")} (the program was run from its TypeScript source; fix the syntax there)`);
  }
  // An ES module has no `require`: one that calls it and declares none gets one, as `cudascript run`'s
  // bundles do (on the first line, so that the source map's lines stay right).
  return commonjs || !needsRequire(out.outputText) ? out.outputText : `${ESM_REQUIRE_BANNER} ${out.outputText}`;
}

/**
 * TypeScript's parser or emitter recurses per level of nesting and ran out of stack. Where: the
 * compiler's project locates it when the parser fails (as for `cudascript check`'s CS1021), else the
 * first construct past MAX_NESTING_DEPTH in the parsed file.
 */
function tooDeeplyNested(text: string, shown: string): CudaScriptError {
  const c = compiler();
  const at = new c.CudaProject().setFileText(shown, text).unparsable?.position ?? c.firstTooDeepOffset(text);
  const before = text.slice(0, Math.max(0, at));
  const where = at >= 0 ? `${shown}:${before.split("\n").length}:${at - before.lastIndexOf("\n")}` : shown;
  return new CudaScriptError(
    "CSR055",
    `${where} - the program nests too deeply for TypeScript (more than ${c.MAX_NESTING_DEPTH} levels${at >= 0 ? " here" : ""}): split deep expressions and statements into named partial results or loops (the program was run from its TypeScript source)`,
  );
}

/** Gives an ES module a CommonJS `require`: the first line of `cudascript run`'s bundles (run-build.ts) and of a transpiled module that calls `require`. */
export const ESM_REQUIRE_BANNER = 'import { createRequire as __cudascriptCreateRequire } from "node:module"; const require = __cudascriptCreateRequire(import.meta.url);';

function needsRequire(js: string): boolean {
  return /\brequire\s*[(.]/.test(js) && !/\b(?:const|let|var|function|class|import)\s+(?:\{[^}]*\b)?require\b/.test(js);
}
