/**
 * Runs a bundled program as `node bundle.mjs args…` would, and turns a CudaScript error that escapes it
 * (a kernel fault, a sanitizer finding, a bad launch) into one clear message with the TypeScript
 * location of the launch, instead of a stack trace (exit code 1 then). Used by `cudascript run` in its
 * own process (no time limit) and by its child process (run-child.ts, under --timeout).
 */
import Module from "node:module";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { TYPESCRIPT_FILE } from "./typescript-hooks";

/** The runtime package (its dist, and its src that source maps point to). */
const RUNTIME_DIR = path.join(__dirname, "..", "..") + path.sep;

/** Where the program called into CudaScript: the first frame that is neither ours, Node's, a dependency's nor the bundle's banner. */
export function programCallSite(e: Error, bundle: string): string | undefined {
  for (const line of (e.stack ?? "").split("\n").slice(1)) {
    // A path starts the frame's location ("at f (/a/b.ts:1:2)", "at /a/b.ts:1:2"): "node:internal/x:1:2" is none.
    const m = /(?:^at |\()((?:file:\/\/)?\/[^():]+|[A-Za-z]:\\[^():]+):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!m) continue;
    let file = m[1]!.replace(/^file:\/\//, "");
    // The bundle's own lines (its banner) are not the program's: its frames are mapped to the sources.
    if (file.startsWith(RUNTIME_DIR) || file.startsWith("node:") || file.includes("/node_modules/") || (file === bundle && !TYPESCRIPT_FILE.test(bundle))) continue;
    file = path.relative(process.cwd(), file) || file;
    return `${file}:${m[2]}:${m[3]}`;
  }
  return undefined;
}

/**
 * Makes `bundle` the program of this process (process.argv as node sets it for `node bundle args`)
 * and starts it. Errors it does not catch are reported once and end the process with code 1.
 * A TypeScript file instead of a bundle (no esbuild to build one) runs from its source through
 * typescript-hooks.ts; its kernels compile at their first launch.
 */
export function runProgram(bundle: string, args: readonly string[]): void {
  const BUNDLE = path.resolve(bundle);
  if (TYPESCRIPT_FILE.test(BUNDLE)) Module.register(pathToFileURL(path.join(__dirname, "typescript-hooks.js")));
  process.argv = [process.argv[0]!, BUNDLE, ...args];
  let reported = false;
  const report = (e: unknown): void => {
    if (reported) return;
    reported = true;
    const err = e as Error & { code?: string };
    // A CudaScriptError thrown in Node's module hooks thread (CSR055) arrives as a plain Error with its message.
    if (err && (err.name === "CudaScriptError" || /^CSR\d{3}: /.test(String(err.message)))) {
      const site = programCallSite(err, BUNDLE);
      process.stderr.write(`cudascript: error ${err.message}\n${site ? `  (from the host program at ${site})\n` : ""}`);
    } else if (err instanceof Error) {
      process.stderr.write(`${err.stack ?? err.message}\n`);
    } else {
      process.stderr.write(`cudascript: the program threw ${String(e)}\n`);
    }
    process.exit(1);
  };
  process.on("uncaughtException", report);
  process.on("unhandledRejection", report);
  import(pathToFileURL(BUNDLE).href).catch(report);
}
