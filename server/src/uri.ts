/**
 * Document URIs ↔ the file paths the checker uses. `file:` URIs map to their path; other schemes
 * (`untitled:`, virtual file systems) get a stable path under a directory that does not exist, so they
 * are checked like any buffer but never resolve imports against the disk.
 */
import { createHash } from "node:crypto";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const VIRTUAL_ROOT = path.resolve(path.sep, "__cudascript_virtual__");

export function uriToPath(uri: string): string {
  if (uri.startsWith("file:")) {
    try {
      return path.resolve(fileURLToPath(uri));
    } catch {
      /* fall through: malformed file URI */
    }
  }
  const hash = createHash("sha1").update(uri).digest("hex").slice(0, 12);
  const base = uri.split(/[/\\:]/).pop() || "untitled";
  const name = /\.(m|c)?tsx?$/.test(base) ? base : `${base}.ts`;
  return path.join(VIRTUAL_ROOT, hash, name.replace(/[^\w.-]/g, "_"));
}

export function pathToUri(p: string): string {
  return pathToFileURL(p).href;
}

/** Whether a document is TypeScript the checker should look at. */
export function isTypeScriptDocument(uri: string, languageId: string | undefined): boolean {
  if (/\.d\.(m|c)?ts$/i.test(uri.split(/[?#]/)[0] ?? "")) return false;
  if (languageId === "typescript" || languageId === "typescriptreact") return true;
  if (languageId && languageId !== "plaintext") return false;
  return /\.(m|c)?tsx?$/i.test(uri.split(/[?#]/)[0] ?? "");
}
