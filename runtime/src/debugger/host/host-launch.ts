/**
 * The debug adapter's launch configurations that run a host program (docs/debugging.md):
 *
 *   { "program": "main.ts", "args"?: [...], "cwd"?, "env"?, "stopOnEntry"?, "breakOnFault"? }
 *   { "program": "kernels.ts", "kernel": "saxpy" }   // without grid/block: from the kernel's @run tag
 *
 * The second writes the host program VS Code's "Run Kernel" writes for the kernel (run-tag/) next to
 * the file, in `.cudascript/`, and debugs it as the first.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import type { KernelChecker } from "@cudascript/compiler";
import { CudaScriptError } from "../../errors";
import { generateHostProgram, parseRunTag, RunTagError, suggestRunTag, type KernelInfo, type KernelParam } from "../../run-tag/index";
import type { BreakpointSpec } from "../session";
import type { HostProgramOptions } from "./host-program";
import { checkFaultDescriptor, type FaultDescriptor } from "../replay-target";

export interface HostLaunchArguments extends DebugProtocol.LaunchRequestArguments {
  readonly program: string;
  /** With no grid/block: debug this kernel of `program` from its @run tag. */
  readonly kernel?: string;
  /** The program's own command-line arguments. */
  readonly args?: readonly string[];
  readonly cwd?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly stopOnEntry?: boolean;
  readonly breakOnFault?: boolean;
  /**
   * Replay to a fault (docs/debugging.md): run the program again and stop at its first kernel fault —
   * `true`, or the fault the run reported ({ code, kernel, file, line, block, thread }), checked against it.
   */
  readonly onFault?: boolean | FaultDescriptor;
  /** The run's `--sanitize`: sanitizer findings are faults only with it. */
  readonly sanitize?: boolean;
  /** The run's `--uninitialized-shared`. */
  readonly uninitializedShared?: "warn" | "error";
}

/** A configuration that writes out a kernel's launch (grid, block) debugs that one launch in the adapter; any other runs a host program. */
export function isHostLaunch(args: object): args is HostLaunchArguments {
  const a = args as { grid?: unknown; block?: unknown };
  return a.grid === undefined && a.block === undefined;
}

function configError(message: string): CudaScriptError {
  return new CudaScriptError("CSD014", `launch configuration: ${message}`);
}

/**
 * The host program to run for a configuration, checked. `cwd` becomes the adapter's working folder
 * (a worker thread cannot have its own): the standalone adapter serves one debug session.
 */
export function hostProgramOptions(args: HostLaunchArguments, breakpoints: ReadonlyMap<string, readonly BreakpointSpec[]>): HostProgramOptions {
  if (args.cwd !== undefined) {
    if (typeof args.cwd !== "string" || !fs.statSync(args.cwd, { throwIfNoEntry: false })?.isDirectory()) throw configError(`"cwd" is the folder the program runs in, got ${JSON.stringify(args.cwd)}`);
    process.chdir(args.cwd);
  }
  if (typeof args.program !== "string" || !fs.statSync(path.resolve(args.program), { throwIfNoEntry: false })?.isFile())
    throw configError(`"program" is the host program (or, with "kernel", the kernel's file), a .ts file; got ${JSON.stringify(args.program)}${args.cwd === undefined ? "" : ` (relative to "cwd")`}`);
  const programArgs = args.args ?? [];
  if (!Array.isArray(programArgs) || !programArgs.every((a) => typeof a === "string"))
    throw configError(`"args" of a host program are its command-line arguments, strings: ["--size", "1024"]; got ${JSON.stringify(args.args)} (a kernel's arguments need "grid" and "block" too)`);
  const env = args.env ?? {};
  if (typeof env !== "object" || Array.isArray(env) || !Object.values(env).every((v) => typeof v === "string")) throw configError(`"env" is an object of strings: { "N": "1024" }; got ${JSON.stringify(args.env)}`);
  let program = path.resolve(args.program);
  if (args.kernel !== undefined) program = runTagProgram(program, args.kernel);
  const fault = checkFaultDescriptor(args.onFault);
  if (args.sanitize !== undefined && typeof args.sanitize !== "boolean") throw configError(`"sanitize" is true or false (the run's --sanitize), got ${JSON.stringify(args.sanitize)}`);
  const uninit = args.uninitializedShared;
  if (uninit !== undefined && uninit !== "warn" && uninit !== "error") throw configError(`"uninitializedShared" is "warn" or "error" (the run's --uninitialized-shared), got ${JSON.stringify(uninit)}`);
  const replay = fault ? { replay: { fault, sanitize: args.sanitize === true, ...(uninit ? { uninitializedShared: uninit } : {}) } } : {};
  return { program, args: programArgs, env, stopOnEntry: args.stopOnEntry === true, breakOnFault: args.breakOnFault !== false, breakpoints, ...replay };
}

/** Writes the host program "Run Kernel" would for `kernel` of `file` (from its @run tag) and returns its path. */
export function runTagProgram(file: string, kernel: string): string {
  const kernels = listKernels(file);
  const k = kernels.find((x) => x.name === kernel || x.exportedAs === kernel);
  if (!k) throw new CudaScriptError("CSD010", `${file} has no kernel '${kernel}'; its kernels are ${kernels.map((x) => x.name).join(", ") || "(none)"}`);
  if (k.run === undefined)
    throw new CudaScriptError("CSD020", `kernel '${k.name}' has no @run tag saying how to launch it: add one in the JSDoc comment above it, for example ${suggestRunTag(k)} — or write the launch in the configuration ("grid", "block", "args")`);
  const dir = path.join(path.dirname(file), ".cudascript");
  let importPath = path.relative(dir, file).replace(/\\/g, "/").replace(/\.(m|c)?tsx?$/, "");
  if (!importPath.startsWith(".")) importPath = `./${importPath}`;
  let text: string;
  try {
    text = generateHostProgram(k, parseRunTag(k.run), { importPath, displayPath: path.basename(file) });
  } catch (e) {
    if (!(e instanceof RunTagError)) throw e;
    throw new CudaScriptError("CSD021", `the @run tag of kernel '${k.name}' (@run ${k.run}): ${e.message}. A tag reads: ${suggestRunTag(k).replace(/^\/\*\* | \*\/$/g, "")}`);
  }
  fs.mkdirSync(dir, { recursive: true });
  if (!fs.existsSync(path.join(dir, ".gitignore"))) fs.writeFileSync(path.join(dir, ".gitignore"), "# generated by CudaScript\n*\n");
  const program = path.join(dir, `debug-${path.basename(file).replace(/\.(m|c)?tsx?$/, "")}-${k.name}.ts`);
  fs.writeFileSync(program, text);
  return program;
}

/** The kernels of a file as the language server lists them (server/src/kernels.ts): the checker's IR and the JSDoc above each. */
export function listKernels(file: string): KernelInfo[] {
  const compiler = require("@cudascript/compiler") as typeof import("@cudascript/compiler");
  const checker: KernelChecker = new compiler.KernelChecker();
  const check = checker.checkFile(file);
  const errors = check.diagnostics.filter((d) => d.severity === "error");
  if (errors.length) throw configError(`${file} does not check: ${errors.map((d) => `${d.span.line}:${d.span.col} ${d.code} ${d.message}`).join("; ")}`);
  const info = checker.front.moduleInfo(file);
  if (!info) return [];
  const none = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const out: KernelInfo[] = [];
  for (const decl of info.functions.values()) {
    if (decl.kind !== "kernel") continue;
    const fn = check.module.kernels.find((k) => k.name === decl.name);
    const run = compiler.runTagText(compiler.jsDocAbove(info.sourceFile, decl.statement)?.body);
    const exportedAs = info.exports.get(decl.name);
    const params: KernelParam[] = (fn?.params ?? []).map((p, i) => {
      const type = decl.fn?.parameters[i]?.type?.getText(info.sourceFile) ?? "";
      const t = p.type;
      if (t.kind === "array") return { name: p.name, kind: t.rank === 1 ? "array" : "ndarray", dtype: t.dtype as KernelParam["dtype"], rank: t.rank, type };
      return { name: p.name, kind: "scalar", dtype: (t.kind === "scalar" ? t.dtype : "i32") as KernelParam["dtype"], rank: 0, type };
    });
    out.push({ name: decl.name, ...(exportedAs !== undefined ? { exportedAs } : {}), range: none, nameRange: none, params, ...(run !== undefined ? { run } : {}) });
  }
  return out;
}
