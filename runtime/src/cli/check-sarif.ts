/**
 * `cudascript check --format sarif`: a SARIF 2.1.0 log for code scanning (GitHub's upload-sarif, Azure
 * DevOps, SARIF viewers). One run; each CS code seen is a rule whose help link is its section of
 * docs/diagnostics.md; locations are relative to the SRCROOT base (the working folder), with 1-based
 * regions as in the text output.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { ALL_CODES, type Diagnostic } from "@cudascript/compiler";
import type { Log, ReportingDescriptor, Result, Location } from "sarif";
import { packageVersion } from "./args";
import type { CheckRound } from "./check-run";

const SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
const INFORMATION_URI = "https://www.npmjs.com/package/cudascript";

/** The SARIF log of one check round; `docsUrl` is docs/diagnostics.md's address (found next to the installation when not given). */
export function sarifReport(round: CheckRound, docsUrl = findDiagnosticsDoc()): string {
  const root = process.cwd();
  const codes = [...new Set(round.diagnostics.map((d) => d.code))].sort();
  const rules: ReportingDescriptor[] = codes.map((code) => {
    const def = ALL_CODES.find((c) => c.code === code);
    return {
      id: code,
      ...(def ? { shortDescription: { text: def.title }, defaultConfiguration: { level: level(def.severity) } } : {}),
      ...(docsUrl ? { helpUri: `${docsUrl}#${code.toLowerCase()}` } : {}),
    };
  });
  const location = (file: string, line: number, col: number, span?: Diagnostic["span"]): Location => ({
    physicalLocation: {
      artifactLocation: artifact(root, file),
      region: { startLine: line, startColumn: col, ...(span && span.end > span.start ? { charOffset: span.start, charLength: span.end - span.start } : {}) },
    },
  });
  const results: Result[] = round.diagnostics.map((d) => ({
    ruleId: d.code,
    ruleIndex: codes.indexOf(d.code),
    level: level(d.severity),
    message: { text: d.message },
    locations: [location(d.span.file, d.span.line, d.span.col, d.span)],
    ...(d.related.length ? { relatedLocations: d.related.map((r, i) => ({ id: i, ...location(r.span.file, r.span.line, r.span.col), message: { text: r.message } })) } : {}),
  }));
  const log: Log = {
    $schema: SARIF_SCHEMA,
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "cudascript", version: packageVersion(), semanticVersion: packageVersion(), informationUri: INFORMATION_URI, rules } },
        originalUriBaseIds: { SRCROOT: { uri: pathToFileURL(root.endsWith(path.sep) ? root : root + path.sep).href } },
        columnKind: "utf16CodeUnits",
        results,
      },
    ],
  };
  return JSON.stringify(log, null, 2) + "\n";
}

function level(severity: string): "error" | "warning" | "note" {
  return severity === "error" ? "error" : severity === "warning" ? "warning" : "note";
}

/** A file under the working folder as a relative URI against SRCROOT; another file as an absolute file URI. */
function artifact(root: string, file: string): { uri: string; uriBaseId?: string } {
  const rel = path.relative(root, file);
  if (rel && !rel.startsWith("..") && !path.isAbsolute(rel)) return { uri: rel.split(path.sep).map(encodeURIComponent).join("/"), uriBaseId: "SRCROOT" };
  return { uri: pathToFileURL(file).href };
}

/**
 * docs/diagnostics.md beside the installation, as a file URI: the repository's docs/ (from
 * runtime/dist/cli), a docs/ the package ships, or the one the VS Code extension bundles beside its CLI.
 */
function findDiagnosticsDoc(): string | undefined {
  const candidates = [
    path.resolve(__dirname, "..", "..", "..", "docs", "diagnostics.md"),
    path.resolve(__dirname, "..", "..", "docs", "diagnostics.md"),
    path.join(__dirname, "docs", "diagnostics.md"),
  ];
  const found = candidates.find((f) => fs.existsSync(f));
  return found ? pathToFileURL(found).href : undefined;
}
