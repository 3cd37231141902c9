/**
 * `cudascript check --watch`: checks, then checks again whenever a checked file or a file it imports
 * changes (or a file appears where an input folder or glob would find it), printing tsc's watch-mode
 * lines. Ctrl-C (SIGINT) or SIGTERM ends it with exit code 0.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { checkInputs, reportInputProblems, type CheckRound } from "./check-run";
import { formatDiagnosticLine } from "./check-report";
import { isSource } from "./inputs";

/** Editors write a file in several steps (truncate, write, rename): one re-check after they settle. */
const DEBOUNCE_MS = 100;

const time = () => new Date().toLocaleTimeString("en-GB");
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function watchCheck(inputs: readonly string[]): Promise<number> {
  const watchers = new Map<string, fs.FSWatcher>();
  let watched = new Set<string>();
  let timer: NodeJS.Timeout | undefined;

  const round = (): void => {
    const r = checkInputs(inputs);
    reportInputProblems(r);
    for (const d of r.diagnostics) console.log(formatDiagnosticLine(d));
    console.log(`${r.diagnostics.length ? "\n" : ""}[${time()}] Found ${plural(r.errors, "error")}${r.warnings ? ` and ${plural(r.warnings, "warning")}` : ""} in ${plural(r.files.length, "file")}. Watching for file changes.`);
    watchFolders(r);
  };

  // Folders, not files: an editor that saves by renaming a new file over the old one ends a file's
  // watch, while its folder sees every save, and new files too.
  const watchFolders = (r: CheckRound): void => {
    watched = new Set(r.dependencies);
    // An input folder or a glob's base folder, recursively (a new file in a subfolder is checked too);
    // the folders of the files read, each on its own.
    const folders = new Map<string, boolean>(r.dependencies.map((f) => [path.dirname(f), false]));
    for (const input of inputs) {
      const abs = path.resolve(input);
      if (isFolder(abs)) folders.set(abs, true);
      else if (!fs.existsSync(abs)) folders.set(globBase(abs), true);
    }
    for (const [folder, w] of watchers) {
      if (folders.has(folder)) continue;
      w.close();
      watchers.delete(folder);
    }
    for (const [folder, recursive] of folders) {
      if (watchers.has(folder) || !isFolder(folder)) continue;
      try {
        watchers.set(folder, fs.watch(folder, { recursive }, (_event, name) => changed(folder, name?.toString())));
      } catch (e) {
        console.error(`cudascript: cannot watch ${folder}: ${(e as Error).message}`);
      }
    }
  };

  const changed = (folder: string, name: string | undefined): void => {
    const file = name ? path.join(folder, name) : undefined;
    if (file && !watched.has(file) && !isSource(file)) return; // a .js or an editor's swap file
    clearTimeout(timer);
    timer = setTimeout(() => {
      console.log(`\n[${time()}] File change detected. Starting incremental check...\n`);
      round();
    }, DEBOUNCE_MS);
  };

  console.log(`[${time()}] Starting check in watch mode...\n`);
  round();
  return new Promise((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      resolve(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

function isFolder(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The folder a glob searches: its path up to the first segment with a glob character. */
function globBase(pattern: string): string {
  const parts = pattern.split(path.sep);
  const first = parts.findIndex((p) => /[*?[\]{}()!]/.test(p));
  return first < 0 ? path.dirname(pattern) : parts.slice(0, first).join(path.sep) || path.sep;
}
