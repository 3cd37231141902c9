/**
 * `cudascript/generatedCode`: the CUDA C++ (compiler's `generateCuda`) or PTX (NVRTC through the
 * compiler's `compileModule`, with line info) of a document's kernels, with a generated → source line
 * map. PTX lines map through their `.loc` directives: directly when `.file` names the TypeScript file,
 * else through the CUDA C++ line map.
 */
import type { FileCheck } from "@cudascript/compiler";
import { ptxFiles } from "@cudascript/native-bindings/ptx-files";
import { loadBackend, nvrtcDisabled, type GeneratedCuda } from "./backend";
import type { GeneratedCodeParams, GeneratedCodeResult } from "./protocol";
import type { Workspace } from "./workspace";
import { uriToPath } from "./uri";
import * as path from "node:path";

export interface GeneratedCodeContext {
  readonly ws: Workspace;
  arch(): string;
  /** The nvrtcPath setting ("" = discover). */
  nvrtcPath(): string;
}

export async function generatedCode(ctx: GeneratedCodeContext, params: GeneratedCodeParams): Promise<GeneratedCodeResult> {
  const kind = params?.kind === "ptx" ? "ptx" : "cuda";
  const languageId = kind === "ptx" ? "ptx" : "cuda-cpp";
  const fail = (error: string): GeneratedCodeResult => ({ text: "", languageId, lineMap: [], error });
  if (!params || typeof params.uri !== "string") return fail("missing uri");
  const file = uriToPath(params.uri);
  const check: FileCheck | undefined = ctx.ws.isOpen(params.uri) ? ctx.ws.ensureChecked(params.uri)?.result : ctx.ws.resultForPath(file);
  if (!check) return fail(`cannot read ${params.uri}`);
  if (!check.isCudaScriptFile) return fail("this file does not import \"cudascript\"");
  // Errors first: a file that does not parse (CS1020, CS1021) has no kernels to speak of yet.
  const errors = check.diagnostics.filter((d) => d.severity === "error");
  if (errors.length) return fail(`fix the ${errors.length} error${errors.length === 1 ? "" : "s"} first (line ${errors[0]!.span.line}: ${errors[0]!.code} ${errors[0]!.message})`);
  if (check.module.kernels.length === 0) return fail("this file declares no kernels (cuda.jit)");
  if (params.kernel && !check.module.kernels.some((k) => k.name === params.kernel)) return fail(`no kernel named '${params.kernel}' in this file`);
  const backend = loadBackend();
  if (!backend.generateCuda) return fail(`CUDA C++ generation is not available: this build of ${backend.source} has no generateCuda yet`);
  const generate = (options?: { lineDirectives?: boolean; kernels?: string[] }): GeneratedCuda | string => {
    try {
      return backend.generateCuda!(check.module, options);
    } catch (err) {
      return `CUDA C++ generation failed: ${err instanceof Error ? err.message : String(err)}`;
    }
  };
  if (kind === "cuda") {
    // For reading: the requested kernel (and what it reaches), without #line noise; the map says where lines came from.
    const cuda = generate({ lineDirectives: false, ...(params.kernel ? { kernels: [params.kernel] } : {}) });
    if (typeof cuda === "string") return fail(cuda);
    const symbol = cuda.kernels.find((k) => k.name === params.kernel)?.symbol ?? params.kernel;
    return {
      text: cuda.source,
      languageId,
      lineMap: cuda.lineMap.filter((e) => samePath(e.file, check.file)).map((e) => ({ generatedLine: e.generatedLine, sourceLine: e.line })),
      kernelLine: symbol ? findKernelLine(cuda.source, symbol, /__global__/) : undefined,
    };
  }
  if (nvrtcDisabled()) return fail("PTX needs NVRTC, which is disabled (CUDASCRIPT_NVRTC=off)");
  if (!backend.compileModule) return fail(`PTX needs NVRTC: this build of ${backend.source} has no compileModule yet`);
  const out = await backend.compileModule(check.module, { arch: ctx.arch(), resources: false, emit: ["ptx"], lineinfo: true, ...(ctx.nvrtcPath() ? { nvrtcPath: ctx.nvrtcPath() } : {}) });
  if (out.nvrtcUnavailable) return fail(`PTX needs NVRTC, which is not available: ${out.nvrtcUnavailable}`);
  if (!out.ok || out.ptx.length === 0) return fail(`NVRTC could not compile this file${out.errors.length ? `: ${out.errors[0]}` : ""}`);
  // The CUDA C++ NVRTC compiled, for PTX lines whose .loc points into it rather than at the TypeScript.
  const cuda = out.cuda ?? (() => {
    const g = generate();
    return typeof g === "string" ? { source: "", kernels: [], lineMap: [] } : g;
  })();
  const symbol = cuda.kernels.find((k) => k.name === params.kernel)?.symbol ?? params.kernel;
  let text = "";
  const lineMap: { generatedLine: number; sourceLine: number }[] = [];
  for (const ptx of out.ptx) {
    const offset = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    for (const e of ptxLineMap(ptx, check.file, cuda)) lineMap.push({ generatedLine: e.generatedLine + offset, sourceLine: e.sourceLine });
    text += (text && !text.endsWith("\n") ? "\n" : "") + ptx;
  }
  return { text, languageId, lineMap, kernelLine: symbol ? findKernelLine(text, symbol, /\.entry/) : undefined };
}

/**
 * Whether a file name from generated code names `file`: absolute, or relative to the module's folder
 * as the compiler writes `#line` names. NVRTC resolves those relative names against the process's
 * working directory in `.file`, so a `.file` path ending in the file's module-relative name counts too.
 */
function samePath(name: string, file: string): boolean {
  if (name === file || path.resolve(path.dirname(file), name) === path.resolve(file)) return true;
  return path.isAbsolute(name) && name === path.resolve(process.cwd(), path.basename(file));
}

function findKernelLine(text: string, kernel: string, marker: RegExp): number | undefined {
  const lines = text.split(/\r?\n/);
  const name = new RegExp(`\\b${kernel.replace(/[$]/g, "\\$")}\\b|_Z\\d+${kernel}`);
  const i = lines.findIndex((l) => marker.test(l) && name.test(l));
  return i < 0 ? undefined : i + 1;
}

/**
 * PTX line → TypeScript line through `.loc file line col` (needs line info). Every instruction line
 * after a `.loc` maps to its line until the next `.loc` or the end of the function.
 */
export function ptxLineMap(ptx: string, tsFile: string, cuda: GeneratedCuda): { generatedLine: number; sourceLine: number }[] {
  const files = ptxFiles(ptx); // names decoded: the compiler escapes them for ptxas
  const lines = ptx.split(/\r?\n/);
  const cudaLines = [...cuda.lineMap].filter((e) => samePath(e.file, tsFile)).sort((a, b) => a.generatedLine - b.generatedLine);
  const viaCuda = (line: number): number | undefined => {
    let best: number | undefined;
    for (const e of cudaLines) {
      if (e.generatedLine > line) break;
      best = e.line;
    }
    return best;
  };
  const out: { generatedLine: number; sourceLine: number }[] = [];
  let current: number | undefined;
  lines.forEach((raw, i) => {
    const l = raw.trim();
    const loc = /^\.loc\s+(\d+)\s+(\d+)/.exec(l);
    if (loc) {
      const name = files.get(Number(loc[1]));
      const line = Number(loc[2]);
      current = name !== undefined && samePath(name, tsFile) ? line : name !== undefined && /\.(m|c)?tsx?$/.test(name) ? undefined : viaCuda(line);
      return;
    }
    if (l === "}") current = undefined;
    if (current === undefined || l === "" || l.startsWith(".") || l.startsWith("//") || l === "{" || l === "}") return;
    out.push({ generatedLine: i + 1, sourceLine: current });
  });
  return out;
}
