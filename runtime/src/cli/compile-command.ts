/**
 * `cudascript compile <file.ts> [--arch sm_80] [--emit cuda|ptx|cubin|resources] [-o dir]`: checks the
 * file like `check`, then writes the generated CUDA C++, the PTX / CUBIN from NVRTC, or prints the
 * per-kernel resources. Exit codes: 0 ok, 1 kernel errors (checker or NVRTC), 2 usage errors or NVRTC
 * missing (`--emit cuda` alone never needs NVRTC).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import {
  compileModule,
  generateCuda,
  KernelChecker,
  parseComputeCapability,
  type CompileOutput,
  type Diagnostic,
  type KernelResourceUsage,
} from "@cudascript/compiler";
import { printUsageError, startCommand, type Command, type OptionSpecs } from "./args";
import { notRegularFile } from "./inputs";
import { makeDirectory, writeAtomically } from "../host/cache-files";

const USAGE = `Usage: cudascript compile [options] <file.ts>

Compiles the kernels of a TypeScript file to CUDA C++ and, through NVRTC, to PTX.
  --arch sm_XX     target GPU (default sm_80)
  --emit WHAT      cuda, ptx (default), cubin, resources; several with commas: --emit ptx,resources
  -o, --out DIR    write <name>.cu / <name>.ptx / <name>.cubin / <name>.resources.txt into DIR
                   (without it, CUDA C++ and PTX go to stdout; cubin needs -o)
  --lineinfo       line info for every kernel (PTX .loc lines point at the TypeScript)
  --no-cache       do not read or write the compile cache
  --nvrtc PATH     use this NVRTC library instead of looking for one
  -h, --help       this text
  --version        the version of cudascript
Locations are file:line:column, 1-based, as tsc prints them.
Exit code: 0 ok, 1 errors in the kernels, 2 usage errors or NVRTC not installed.`;

const COMPILE_OPTIONS: OptionSpecs = {
  arch: { type: "string" },
  emit: { type: "string" },
  out: { type: "string", short: "o" },
  "no-cache": { type: "boolean" },
  lineinfo: { type: "boolean" },
  nvrtc: { type: "string" },
};

const EMITS = ["cuda", "ptx", "cubin", "resources"] as const;
type Emit = (typeof EMITS)[number];

export const compileCommand: Command = async (argv) => {
  const args = startCommand(argv, COMPILE_OPTIONS, USAGE);
  if (typeof args === "number") return args;
  if (args.positional.length !== 1) return printUsageError(args.positional.length ? "compile one file at a time" : "name the file to compile, e.g. cudascript compile kernels.ts", USAGE);
  const arch = (args.flags.get("arch") as string | undefined) ?? "sm_80";
  if (parseComputeCapability(arch) === undefined) return printUsageError(`--arch takes a GPU architecture such as sm_80, not '${arch}'`, USAGE);
  const emitText = (args.flags.get("emit") as string | undefined) ?? "ptx";
  const emits = new Set<Emit>();
  for (const e of emitText.split(",").map((s) => s.trim()).filter(Boolean)) {
    if (!(EMITS as readonly string[]).includes(e)) return printUsageError(`--emit takes ${EMITS.join(", ")}, not '${e}'`, USAGE);
    emits.add(e as Emit);
  }
  const outDir = args.flags.get("out") as string | undefined;
  if (emits.has("cubin") && !outDir) return printUsageError("--emit cubin writes a binary file: give an output folder with -o", USAGE);
  const outProblem = outDir === undefined ? undefined : outputFolderProblem(outDir);
  if (outProblem) return printUsageError(outProblem, USAGE);

  const file = path.resolve(args.positional[0]!);
  const unreadable = notRegularFile(file);
  if (unreadable) {
    console.error(fs.existsSync(file) ? `cudascript: cannot compile ${args.positional[0]}: ${unreadable}; give a TypeScript file` : `cudascript: no such file: ${args.positional[0]}`);
    return 2;
  }
  const check = new KernelChecker().checkFile(file);
  printDiagnostics(check.diagnostics);
  if (check.diagnostics.some((d) => d.severity === "error")) return 1;
  if (check.module.kernels.length === 0) {
    console.error(`cudascript: ${rel(file)} has no kernels (cuda.jit) to compile`);
    return check.isCudaScriptFile ? 0 : 2;
  }
  const base = path.basename(file).replace(/\.(c|m)?ts$/, "");
  if (outDir) {
    const unmade = makeDirectory(outDir);
    if (unmade) {
      console.error(`cudascript: cannot create the output folder ${outDir} (${unmade}): give -o a folder that can be created and written`);
      return 2;
    }
  }
  let writeFailed = false;
  const write = (name: string, data: string | Uint8Array) => {
    const target = path.join(outDir!, name);
    // Through a temporary file renamed over the target: a FIFO of that name is replaced, never opened (and blocked on).
    const failed = writeAtomically(target, typeof data === "string" ? Buffer.from(data, "utf8") : data);
    if (failed === undefined) console.log(`wrote ${rel(target)}`);
    else {
      // e.g. a folder of that name, or no permission: say which file, not "internal error".
      console.error(`cudascript: cannot write ${rel(target)}: ${failed}`);
      writeFailed = true;
    }
  };
  const print = (text: string) => fs.writeSync(1, text.endsWith("\n") ? text : `${text}\n`);

  const needsNvrtc = emits.has("ptx") || emits.has("cubin") || emits.has("resources");
  if (!needsNvrtc) {
    const cuda = generateCuda(check.module).source;
    if (outDir) write(`${base}.cu`, cuda);
    else print(cuda);
    return writeFailed ? 2 : 0;
  }

  const out: CompileOutput = await compileModule(check.module, {
    arch,
    emit: emits.has("cubin") ? ["ptx", "cubin"] : ["ptx"],
    resources: emits.has("resources"),
    cache: !args.flags.has("no-cache"),
    lineinfo: args.flags.has("lineinfo"),
    ...(args.flags.has("nvrtc") ? { nvrtcPath: path.resolve(args.flags.get("nvrtc") as string) } : {}),
  });
  if (emits.has("cuda") && out.cuda.source) {
    if (outDir) write(`${base}.cu`, out.cuda.source);
    else print(out.cuda.source);
  }
  if (out.nvrtcUnavailable) {
    console.error(`cudascript: cannot compile to PTX: ${out.nvrtcUnavailable.message}`);
    return 2;
  }
  printDiagnostics(out.diagnostics);
  if (!out.ok) return 1;
  const several = out.modules.length > 1;
  out.modules.forEach((m, i) => {
    const suffix = several && i > 0 ? `.${i}` : "";
    if (several) console.error(`cudascript: module ${i} (${m.nvrtcOptions.slice(1).join(" ") || "default options"}): ${m.kernels.join(", ")}`);
    if (emits.has("ptx") && m.ptx !== undefined) {
      if (outDir) write(`${base}${suffix}.ptx`, m.ptx);
      else print(m.ptx);
    }
    if (emits.has("cubin") && m.cubin) write(`${base}${suffix}.cubin`, m.cubin);
  });
  if (emits.has("resources")) {
    const table = resourcesTable(arch, out);
    print(table);
    if (outDir) write(`${base}.resources.txt`, table);
  }
  return writeFailed ? 2 : 0;
};

function resourcesTable(arch: string, out: CompileOutput): string {
  const rows: string[][] = [["kernel", "registers", "shared", "local", "spill st/ld"]];
  for (const k of out.cuda.kernels) {
    const r: KernelResourceUsage | undefined = out.resources.get(k.name);
    if (!r) continue;
    rows.push([k.name, String(r.registers), `${r.sharedBytes} B`, `${r.localBytes} B`, `${r.spillStores}/${r.spillLoads} B`]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  const lines = rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "));
  const where = `${arch.replace(/^compute_/, "sm_").replace(/^(\d)/, "sm_$1")}, NVRTC ${out.nvrtcVersion ?? "?"}${out.fromCache ? " (cached)" : ""}`;
  return [`Resources per thread and block (${where}):`, ...lines].join("\n") + "\n";
}

/**
 * Why `-o dir` cannot be the output folder, checked before compiling: the nearest part of the path
 * that exists must be a folder (a file there, or above, would make every write fail).
 */
function outputFolderProblem(outDir: string): string | undefined {
  for (let p = path.resolve(outDir); ; p = path.dirname(p)) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(p);
    } catch {
      // not there yet: it will be created; look further up
    }
    if (stat) return stat.isDirectory() ? undefined : `-o names the folder to write into, but ${rel(p)} is a file: give a folder (it is created if missing)`;
    if (path.dirname(p) === p) return undefined;
  }
}

function rel(f: string): string {
  return path.relative(process.cwd(), f) || f;
}

function printDiagnostics(all: readonly Diagnostic[]): void {
  for (const d of all) {
    console.error(`${rel(d.span.file)}:${d.span.line}:${d.span.col} - ${d.severity} ${d.code}: ${d.message}`);
    for (const r of d.related) console.error(`  ${rel(r.span.file)}:${r.span.line}:${r.span.col}: ${r.message}`);
  }
}
