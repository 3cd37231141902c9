/**
 * NVRTC's program log → CS9002 diagnostics at TypeScript locations. With `#line` directives NVRTC
 * already names the `.ts` file and line (`saxpy.ts(7): error: …`); lines of the generated file itself
 * (`saxpy.cu(12)`, e.g. in the prelude or without directives) go through the generator's lineMap.
 * ptxas errors name an entry function, which maps to the kernel.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { Codes } from "../diagnostics/codes";
import { makeDiagnostic, type Diagnostic } from "../diagnostics/diagnostic";
import type { IrFunction, IrModule, Span, Stmt } from "../ir/nodes";
import type { GeneratedCuda } from "../cuda/generate";

const COMPILER_MESSAGE = /^(.+?)\((\d+)\): (error|catastrophic error|warning)(?: #[\w-]+(?:-D)?)?: (.*)$/;
const PTXAS_ERROR = /^ptxas\s*(?:fatal|error)\s*:\s*(.*)$/;

export function diagnosticsFromLog(log: string, module: IrModule, gen: GeneratedCuda, programName: string): Diagnostic[] {
  const lines = log.split(/\r?\n/);
  const out: Diagnostic[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let m = COMPILER_MESSAGE.exec(line);
    if (m) {
      if (m[3] === "warning") continue;
      // Continuation lines ("detected during …", source excerpts) until the next blank line.
      const extra: string[] = [];
      while (i + 1 < lines.length && lines[i + 1]!.trim() !== "" && !COMPILER_MESSAGE.exec(lines[i + 1]!)) extra.push(lines[++i]!.trim());
      const where = locate(m[1]!, Number(m[2]), module, gen, programName);
      const text = [m[4]!, ...extra].join(" ");
      out.push(
        makeDiagnostic(Codes.NvrtcRejected, where.span, `NVRTC rejected the generated code: ${text}${where.generated ? ` (generated line ${where.generated})` : ""}`),
      );
      continue;
    }
    m = PTXAS_ERROR.exec(line);
    if (m) {
      const entry = /'([^']+)'/.exec(m[1]!)?.[1];
      const kernel = gen.kernels.find((k) => k.symbol === entry);
      out.push(makeDiagnostic(Codes.NvrtcRejected, kernel?.span ?? fallbackSpan(module), `ptxas rejected the generated code: ${m[1]!}`));
    }
  }
  return out;
}

/** One diagnostic for a failure the log does not place (options, builtins library, …). */
export function unplacedDiagnostic(module: IrModule, message: string): Diagnostic {
  return makeDiagnostic(Codes.NvrtcRejected, fallbackSpan(module), message);
}

export function fallbackSpan(module: IrModule): Span {
  return module.kernels[0]?.span ?? module.deviceFunctions[0]?.span ?? { file: module.file, start: 0, end: 0, line: 1, col: 1 };
}

function locate(file: string, line: number, module: IrModule, gen: GeneratedCuda, programName: string): { span: Span; generated?: number } {
  if (file === programName || file.endsWith(".cu")) {
    // A line of the generated file: the closest mapped line at or before it.
    let best: { file: string; line: number } | undefined;
    for (const e of gen.lineMap) if (e.generatedLine <= line) best = e;
    return { span: best ? spanAt(module, best.file, best.line) : fallbackSpan(module), generated: line };
  }
  const abs = path.resolve(path.dirname(module.file), file);
  return { span: spanAt(module, abs, line) };
}

/** The first IR statement starting on `line` of `file`; else the whole line; else the module's first kernel. */
function spanAt(module: IrModule, file: string, line: number): Span {
  const fns: IrFunction[] = [...module.deviceFunctions, ...module.kernels];
  let found: Span | undefined;
  const walk = (body: readonly Stmt[]) => {
    for (const s of body) {
      if (found) return;
      if (s.span.file === file && s.span.line === line) {
        found = s.span;
        return;
      }
      if (s.k === "if") {
        walk(s.then);
        if (s.else) walk(s.else);
      } else if (s.k === "loop") {
        walk(s.init);
        walk(s.body);
        walk(s.update);
      } else if (s.k === "block") walk(s.body);
    }
  };
  for (const f of fns) {
    if (f.span.file === file && f.span.line === line) return f.span;
    walk(f.body);
    if (found) return found;
  }
  try {
    const text = fs.readFileSync(file, "utf8");
    let start = 0;
    for (let l = 1; l < line; l++) {
      const nl = text.indexOf("\n", start);
      if (nl < 0) return fallbackSpan(module);
      start = nl + 1;
    }
    const nl = text.indexOf("\n", start);
    const end = nl < 0 ? text.length : nl;
    const indent = /^\s*/.exec(text.slice(start, end))![0].length;
    return { file, start: start + indent, end, line, col: indent + 1 };
  } catch {
    return fallbackSpan(module);
  }
}
