/**
 * Whether a workspace or a file uses CudaScript: the extension activates on every TypeScript file
 * (VS Code cannot activate on "a package.json that depends on X"), and these cheap checks decide
 * whether it starts the language server — a ~130 MB process that projects without CudaScript should
 * never pay for. Only small reads and stats: no glob over the tree, no TypeScript. No editor imports.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/** The packages whose presence means "this project writes CudaScript". */
const PACKAGE = /^(cudascript|@cudascript\/[\w.-]+)$/;
const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] as const;

/** An import, re-export, `require` or dynamic `import()` of `cudascript` or a `@cudascript/…` package. */
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["'](?:cudascript|@cudascript\/[\w.-]+)(?:\/[^"']*)?["']/;

export function textImportsCudaScript(text: string): boolean {
  return IMPORT.test(text);
}

/** A package.json's text: is it CudaScript itself, or does it depend on it? */
export function manifestUsesCudaScript(json: string): boolean {
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return false;
  }
  if (typeof pkg.name === "string" && PACKAGE.test(pkg.name)) return true;
  return DEPENDENCY_FIELDS.some((field) => {
    const deps = pkg[field];
    return !!deps && typeof deps === "object" && Object.keys(deps).some((name) => PACKAGE.test(name));
  });
}

function readText(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

/** A folder whose package.json depends on CudaScript, or whose node_modules holds it (one read, one stat). */
export function folderUsesCudaScript(dir: string): boolean {
  const manifest = readText(path.join(dir, "package.json"));
  if (manifest !== undefined && manifestUsesCudaScript(manifest)) return true;
  return fs.existsSync(path.join(dir, "node_modules", "cudascript", "package.json"));
}

/**
 * A TypeScript file uses CudaScript when it imports it, or when its project does: the nearest folder
 * up from the file with a package.json (a monorepo's package, not just the workspace root).
 */
export function fileUsesCudaScript(file: string, text?: string): boolean {
  if (text !== undefined && textImportsCudaScript(text)) return true;
  for (let dir = path.dirname(path.resolve(file)); ; dir = path.dirname(dir)) {
    if (folderUsesCudaScript(dir)) return true;
    if (fs.existsSync(path.join(dir, "package.json")) || path.dirname(dir) === dir) return false;
  }
}
