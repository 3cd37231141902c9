/**
 * `cudascript check [--format text|json|sarif] [--watch] <files|dirs|globs>`: reports every diagnostic
 * like tsc (`file:line:col - error CS1001: …`, 1-based); exit 1 when there are errors, 0 otherwise, 2
 * for usage errors and inputs that name nothing.
 */
import * as fs from "node:fs";
import { printUsageError, startCommand, type Command, type OptionSpecs } from "./args";
import { FORMATS, jsonReport, textReport, type Format } from "./check-report";
import { checkInputs, reportInputProblems } from "./check-run";

const USAGE = `Usage: cudascript check [options] <files|dirs|globs...>

Checks every TypeScript file that imports "cudascript" against the kernel-language rules.
Globs (quote them): *, **, ?, {a,b}, [abc]; a folder is searched for .ts/.mts/.cts files.

Options:
  --format text|json|sarif   text: file:line:col - error CSxxxx: message (1-based, as tsc; the VS Code
                             extension's $cudascript problem matcher reads it); json; sarif: SARIF 2.1.0
                             for code scanning
  -w, --watch                check again whenever a checked file or one it imports changes (Ctrl-C ends)
  -h, --help                 this text
  --version                  the version of cudascript
Exit code: 1 if any error was reported, 2 for usage errors or inputs that match nothing, 0 otherwise.`;

const CHECK_OPTIONS: OptionSpecs = { format: { type: "string" }, watch: { type: "boolean", short: "w" } };

export const checkCommand: Command = async (argv) => {
  const args = startCommand(argv, CHECK_OPTIONS, USAGE);
  if (typeof args === "number") return args;
  const format = ((args.flags.get("format") as string | undefined) ?? "text") as Format;
  if (!FORMATS.includes(format)) return printUsageError(`--format takes ${FORMATS.join(", ")}, not '${format}'`, USAGE);
  if (args.positional.length === 0) return printUsageError("name the files or folders to check, e.g. cudascript check examples/", USAGE);
  if (args.flags.has("watch")) {
    if (format !== "text") return printUsageError(`--watch prints text; --format ${format} writes one report: leave out one of them`, USAGE);
    return (require("./check-watch") as typeof import("./check-watch")).watchCheck(args.positional);
  }
  const round = checkInputs(args.positional);
  const inputProblems = reportInputProblems(round);
  if (round.files.length === 0) {
    if (inputProblems) return 2;
    console.error("cudascript: no TypeScript files found");
    return 0;
  }
  const report = format === "json" ? jsonReport(round) : format === "sarif" ? (require("./check-sarif") as typeof import("./check-sarif")).sarifReport(round) : textReport(round);
  fs.writeSync(1, report);
  if (round.missing.length || round.unmatched.length) return 2;
  return round.errors > 0 ? 1 : 0;
};
