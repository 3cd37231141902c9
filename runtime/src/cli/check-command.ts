/**
 * `cudascript check <files|dirs|globs> [--format text|json]`: reports every diagnostic like tsc
 * (`file:line:col - error CS1001: …`); exit 1 when there are errors, 0 otherwise.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { KernelChecker, type Diagnostic } from "@cudascript/compiler";
import { parseArgs, printUsageError, type Command } from "./args";
import { expandInputs } from "./inputs";

const USAGE = `Usage: cudascript check <files|dirs|globs> [--format text|json]

Checks every TypeScript file that imports "cudascript" against the kernel-language rules.
Exit code: 1 if any error was reported, 0 otherwise.`;

export const checkCommand: Command = async (argv) => {
  const args = parseArgs(argv, ["help"], ["format", "help", "h"]);
  if ("error" in args) return printUsageError(args.error, USAGE);
  if (args.flags.has("help") || args.flags.has("h")) {
    console.log(USAGE);
    return 0;
  }
  const format = (args.flags.get("format") as string | undefined) ?? "text";
  if (format !== "text" && format !== "json") return printUsageError(`--format takes text or json, not '${format}'`, USAGE);
  if (args.positional.length === 0) return printUsageError("name the files or folders to check, e.g. cudascript check examples/", USAGE);
  const expanded = expandInputs(args.positional);
  for (const missing of expanded.missing) console.error(`cudascript: no such file or folder: ${missing}`);
  const rel = (f: string) => path.relative(process.cwd(), f) || f;
  for (const s of expanded.skipped) console.error(`cudascript: skipped ${rel(s.path)}: ${s.reason}; only regular files are checked`);
  if (expanded.files.length === 0) {
    console.error("cudascript: no TypeScript files found");
    return expanded.missing.length || expanded.skipped.length ? 2 : 0;
  }
  const checker = new KernelChecker();
  const all: Diagnostic[] = [];
  let kernels = 0;
  for (const file of expanded.files) {
    const r = checker.checkFile(file);
    kernels += r.module.kernels.length;
    all.push(...r.diagnostics);
  }
  const errors = all.filter((d) => d.severity === "error").length;
  const warnings = all.filter((d) => d.severity === "warning").length;
  if (format === "json") {
    const out = {
      files: expanded.files.length,
      skipped: expanded.skipped.map((s) => ({ file: rel(s.path), reason: s.reason })),
      kernels,
      errors,
      warnings,
      diagnostics: all.map((d) => ({
        file: rel(d.span.file),
        line: d.span.line,
        column: d.span.col,
        start: d.span.start,
        end: d.span.end,
        code: d.code,
        severity: d.severity,
        message: d.message,
        related: d.related.map((r) => ({ file: rel(r.span.file), line: r.span.line, column: r.span.col, message: r.message })),
      })),
    };
    fs.writeSync(1, JSON.stringify(out, null, 2) + "\n");
  } else {
    for (const d of all) {
      console.log(`${path.relative(process.cwd(), d.span.file) || d.span.file}:${d.span.line}:${d.span.col} - ${d.severity} ${d.code}: ${d.message}`);
      for (const r of d.related) console.log(`  ${path.relative(process.cwd(), r.span.file)}:${r.span.line}:${r.span.col}: ${r.message}`);
    }
    const skippedNote = expanded.skipped.length ? `; skipped ${expanded.skipped.length} that ${expanded.skipped.length === 1 ? "is not a regular file" : "are not regular files"}` : "";
    const summary = `Checked ${expanded.files.length} file${expanded.files.length === 1 ? "" : "s"} (${kernels} kernel${kernels === 1 ? "" : "s"}): ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}${skippedNote}.`;
    console.log(all.length ? `\n${summary}` : summary);
  }
  return errors > 0 ? 1 : 0;
};
