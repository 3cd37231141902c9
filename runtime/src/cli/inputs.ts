/** Expands command-line inputs (files, folders, globs) into TypeScript source files. */
import * as fs from "node:fs";
import * as path from "node:path";

const SKIP_DIRS = new Set(["node_modules", "dist", ".git", "out"]);

function isSource(f: string): boolean {
  return /\.(c|m)?ts$/.test(f) && !f.endsWith(".d.ts");
}

function walk(dir: string, out: string[]): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) walk(path.join(dir, e.name), out);
    } else if (isSource(e.name)) out.push(path.join(dir, e.name));
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

export function expandInputs(inputs: readonly string[]): { files: string[]; missing: string[] } {
  const files = new Set<string>();
  const missing: string[] = [];
  for (const input of inputs) {
    if (/[*?]/.test(input)) {
      const base = input.split(/[*?]/)[0]!.replace(/[^/]*$/, "") || ".";
      const re = globToRegExp(path.resolve(input));
      const found: string[] = [];
      if (fs.existsSync(base)) walk(path.resolve(base), found);
      const matched = found.filter((f) => re.test(f));
      if (matched.length === 0) missing.push(input);
      matched.forEach((f) => files.add(f));
      continue;
    }
    const abs = path.resolve(input);
    let stat: fs.Stats;
    try {
      stat = fs.statSync(abs);
    } catch {
      missing.push(input);
      continue;
    }
    if (stat.isDirectory()) {
      const found: string[] = [];
      walk(abs, found);
      found.sort().forEach((f) => files.add(f));
    } else files.add(abs);
  }
  return { files: [...files], missing };
}
