/** Expands command-line inputs (files, folders, globs) into TypeScript source files. */
import * as fs from "node:fs";
import * as path from "node:path";

const SKIP_DIRS = new Set(["node_modules", "dist", ".git", "out"]);

function isSource(f: string): boolean {
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
  const kind = stat.isFIFO() ? "a FIFO" : stat.isSocket() ? "a socket" : stat.isCharacterDevice() ? "a character device" : stat.isBlockDevice() ? "a block device" : stat.isDirectory() ? "a folder" : "not a file";
  return `not a regular file (${kind})`;
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

/** `*` matches within a path segment, `**` across segments, `?` one character. */
function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      re += ".*";
      i++;
      if (glob[i + 1] === "/") i++;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/**
 * `files`: the regular TypeScript files to read; `missing`: inputs that name nothing; `skipped`:
 * paths that are not regular files (FIFOs, devices, broken links), which are never opened.
 */
export function expandInputs(inputs: readonly string[]): { files: string[]; missing: string[]; skipped: SkippedInput[] } {
  const files = new Set<string>();
  const missing: string[] = [];
  const skipped: SkippedInput[] = [];
  for (const input of inputs) {
    if (/[*?]/.test(input)) {
      const base = input.split(/[*?]/)[0]!.replace(/[^/]*$/, "") || ".";
      const re = globToRegExp(path.resolve(input));
      const found: string[] = [];
      const skippedHere: SkippedInput[] = [];
      if (fs.existsSync(base)) walk(path.resolve(base), found, skippedHere);
      const matched = found.filter((f) => re.test(f));
      const skippedMatches = skippedHere.filter((k) => re.test(k.path));
      skipped.push(...skippedMatches);
      if (matched.length === 0 && skippedMatches.length === 0) missing.push(input);
      matched.forEach((f) => files.add(f));
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
  return { files: [...files], missing, skipped };
}
