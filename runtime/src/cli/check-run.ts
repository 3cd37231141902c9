/** One round of `cudascript check`: the inputs expanded, every file checked, the files each read. */
import * as path from "node:path";
import { KernelChecker, type Diagnostic } from "@cudascript/compiler";
import { expandInputs, type SkippedInput } from "./inputs";

export interface CheckRound {
  readonly files: string[];
  readonly skipped: SkippedInput[];
  /** Inputs that name nothing, and globs that match no TypeScript file. */
  readonly missing: string[];
  readonly unmatched: string[];
  readonly kernels: number;
  readonly diagnostics: Diagnostic[];
  readonly errors: number;
  readonly warnings: number;
  /** Every file the checker read (the inputs and what they import), for --watch. */
  readonly dependencies: string[];
}

export function checkInputs(inputs: readonly string[]): CheckRound {
  const expanded = expandInputs(inputs);
  const checker = new KernelChecker();
  const diagnostics: Diagnostic[] = [];
  let kernels = 0;
  for (const file of expanded.files) {
    const r = checker.checkFile(file);
    kernels += r.module.kernels.length;
    diagnostics.push(...r.diagnostics);
  }
  const dependencies = expanded.files.length ? checker.project.filesRead().filter((f) => !f.split(path.sep).includes("node_modules")) : [];
  return {
    ...expanded,
    kernels,
    diagnostics,
    errors: diagnostics.filter((d) => d.severity === "error").length,
    warnings: diagnostics.filter((d) => d.severity === "warning").length,
    dependencies: [...new Set([...expanded.files, ...dependencies])],
  };
}

/** Says which inputs were missing, unmatched or skipped (stderr). True when any was. */
export function reportInputProblems(round: CheckRound): boolean {
  for (const missing of round.missing) console.error(`cudascript: no such file or folder: ${missing}`);
  for (const glob of round.unmatched) console.error(`cudascript: no TypeScript file matches '${glob}' (quote a glob so that the shell leaves it to cudascript; ** matches any folders, {a,b} either name)`);
  for (const s of round.skipped) console.error(`cudascript: skipped ${relativePath(s.path)}: ${s.reason}; only regular files are checked`);
  return round.missing.length + round.unmatched.length + round.skipped.length > 0;
}

/** A path as printed: relative to the working directory (as tsc prints them), or as is when that is empty. */
export function relativePath(file: string): string {
  return path.relative(process.cwd(), file) || file;
}
