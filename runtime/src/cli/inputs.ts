/** Expands command-line inputs (files, folders, globs) into TypeScript source files. */
import * as fs from "node:fs";
import * as path from "node:path";
import { fileKind } from "../host/cache-files";

const SKIP_DIRS = new Set(["node_modules", "dist", ".git", "out"]);

export function isSource(f: string): boolean {
  return /\.(c|m)?ts$/.test(f) && !f.endsWith(".d.ts");
}

/** A source-named path that is not read, and why (a FIFO would block the read forever, a device never end it). */
export interface SkippedInput {
  readonly path: string;
  readonly reason: string;
}

/** Why `file` cannot be read as a source file, or undefined when it is a regular file (or a link to one). */
export function notRegularFile(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (e) {
    try {
      if (fs.lstatSync(file).isSymbolicLink()) return `a broken symbolic link (to ${fs.readlinkSync(file)})`;
    } catch {
      // neither the file nor a link: report the first error
    }
    return `cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
  }
  if (stat.isFile()) return undefined;
  return `not a regular file (${fileKind(stat)})`;
}

function walk(dir: string, out: string[], skipped: SkippedInput[]): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) walk(path.join(dir, e.name), out, skipped);
    } else if (isSource(e.name)) {
      const file = path.join(dir, e.name);
      const reason = notRegularFile(file);
      if (reason) skipped.push({ path: file, reason });
      else out.push(file);
    }
  }
}

/** Loaded when a glob is given: `cudascript run` reads this module too, and never needs it. */
function tinyglobby(): typeof import("tinyglobby") {
  return require("tinyglobby") as typeof import("tinyglobby");
}

/**
 * The source files a glob names, by tinyglobby (picomatch syntax, as npm scripts and bundlers read
 * globs: `*`, `**`, `?`, `{a,b}`, `[k]`). Folders a walk skips (node_modules, dist, dot-folders) are
 * skipped here too unless the glob names them itself.
 */
function expandGlob(pattern: string): { files: string[]; skipped: SkippedInput[] } {
  const { globSync } = tinyglobby();
  const ignore = [...SKIP_DIRS].filter((d) => !pattern.split("/").includes(d)).map((d) => `**/${d}/**`);
  const matched = globSync(pattern, { absolute: true, onlyFiles: true, expandDirectories: false, followSymbolicLinks: true, ignore }).filter(isSource).sort();
  const files: string[] = [];
  const skipped: SkippedInput[] = [];
  for (const file of matched) {
    const reason = notRegularFile(file);
    if (reason) skipped.push({ path: file, reason });
    else files.push(path.normalize(file));
  }
  return { files, skipped };
}

/**
 * `files`: the regular TypeScript files to read; `missing`: inputs that name nothing; `unmatched`:
 * globs that match no TypeScript file; `skipped`: paths that are not regular files (FIFOs, devices,
 * broken links), which are never opened. A path that exists is taken as it is, even with glob
 * characters in its name.
 */
export function expandInputs(inputs: readonly string[]): { files: string[]; missing: string[]; unmatched: string[]; skipped: SkippedInput[] } {
  const files = new Set<string>();
  const missing: string[] = [];
  const unmatched: string[] = [];
  const skipped: SkippedInput[] = [];
  for (const input of inputs) {
    if (!fs.existsSync(input) && tinyglobby().isDynamicPattern(input)) {
      const found = expandGlob(input);
      skipped.push(...found.skipped);
      if (found.files.length === 0 && found.skipped.length === 0) unmatched.push(input);
      found.files.forEach((f) => files.add(f));
      continue;
    }
    const abs = path.resolve(input);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(abs);
    } catch {
      const broken = notRegularFile(abs);
      if (broken && broken.startsWith("a broken symbolic link")) skipped.push({ path: abs, reason: broken });
      else missing.push(input);
      continue;
    }
    if (stat.isDirectory()) {
      const found: string[] = [];
      walk(abs, found, skipped);
      found.sort().forEach((f) => files.add(f));
    } else if (stat.isFile()) files.add(abs);
    else skipped.push({ path: abs, reason: notRegularFile(abs)! });
  }
  return { files: [...files], missing, unmatched, skipped };
}
