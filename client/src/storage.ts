/**
 * The extension's own files: a folder per kind (results files, profiles) in the workspace's storage,
 * keeping only the newest of each.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type * as vscode from "vscode";

/** How many files of a kind are kept (a results panel restored after a reload names one of them). */
const KEPT = 30;

/** The folder `name` of the extension's storage, made if missing, with the files ending in `ext` pruned to the newest KEPT. */
export function storageFolder(context: vscode.ExtensionContext, name: string, ext: string): string {
  const base = context.storageUri?.fsPath ?? context.globalStorageUri?.fsPath ?? path.join(os.tmpdir(), "cudascript");
  const dir = path.join(base, name);
  fs.mkdirSync(dir, { recursive: true });
  try {
    // Names start with an ISO time stamp: sorted, the oldest come first.
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(ext)).sort();
    for (const f of files.slice(0, Math.max(0, files.length - KEPT))) fs.rmSync(path.join(dir, f), { force: true });
  } catch {
    /* best effort: old files */
  }
  return dir;
}
