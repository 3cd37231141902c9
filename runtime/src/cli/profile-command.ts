/**
 * `cudascript profile [--gpu a100] [--format text|json] [-o FILE] [--timeout s] <file.ts> [program args...]`
 *
 * Runs the program as `cudascript run --backend simulator` does (the same build and run path, in a
 * child process) with CUDASCRIPT_PROFILE set, so every launch is counted on the simulator
 * (docs/profiling.md), then prints the report: text for a person (the default), or the JSON to stdout
 * or to `-o FILE`. With the JSON on stdout, the program's own stdout goes to stderr, so stdout is the
 * JSON alone.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { Command } from "./args";
import { printUsageError, startCommand, type OptionSpecs } from "./args";
import { CudaScriptError } from "../errors";
import { DEFAULT_GPU, GPUS, gpuSpec } from "../profiler/gpus";
import type { ProfileReport } from "../profiler/report";
import { formatProfileText } from "../profiler/text";

export const PROFILE_USAGE = `Usage: cudascript profile [options] <file.ts> [program arguments...]

Runs the program on the simulator and counts, per kernel launch and per source line, what Nsight
Compute counts for the memory system and divergence: global load/store requests and 32-byte sectors
(coalescing), shared-memory wavefronts (bank conflicts), atomics and their contention, branches and
divergent branches; then derived figures, a roofline estimate for a GPU, and the worst lines with
what to do. No GPU needed (docs/profiling.md).

Options:
  --gpu <name>          the GPU of the estimate: ${GPUS.map((g) => g.id).join(", ")} (default ${DEFAULT_GPU})
  --format text|json    text for a person (default), or the report as JSON
  -o, --output <file>   write the report there instead of stdout
  --timeout <s>         stop the program after s seconds (as cudascript run)
  -h, --help            this text`;

const PROFILE_OPTIONS: OptionSpecs = {
  gpu: { type: "string" },
  format: { type: "string" },
  output: { type: "string", short: "o" },
  timeout: { type: "string" },
  backend: { type: "string" },
};

export const profileCommand: Command = async (argv) => {
  const args = startCommand(argv, PROFILE_OPTIONS, PROFILE_USAGE, { program: true });
  if (typeof args === "number") return args;
  const file = args.positional[0];
  if (!file) return printUsageError("name the program to profile, e.g. cudascript profile examples/transpose.ts", PROFILE_USAGE);
  const format = (args.flags.get("format") as string | undefined) ?? "text";
  if (format !== "text" && format !== "json") return printUsageError(`--format ${format}: write text or json`, PROFILE_USAGE);
  const gpu = (args.flags.get("gpu") as string | undefined) ?? DEFAULT_GPU;
  try {
    gpuSpec(gpu);
  } catch (e) {
    if (e instanceof CudaScriptError) {
      console.error(`cudascript: error ${e.message}`);
      return 2;
    }
    throw e;
  }
  const backend = args.flags.get("backend") as string | undefined;
  if (backend !== undefined && backend !== "simulator") {
    console.error(`cudascript: error CSR091: --backend ${backend}: the profiler counts on the simulator; leave --backend out (or write --backend simulator), or use Nsight Compute on the GPU`);
    return 2;
  }
  const output = args.flags.get("output") as string | undefined;
  const timeout = args.flags.get("timeout") as string | undefined;
  const programArgs = args.programArgs[0] === "--" ? args.programArgs.slice(1) : args.programArgs;

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-profile-"));
  const reportFile = path.join(dir, "profile.json");
  try {
    const runArgs = [path.join(__dirname, "main.js"), "run", "--backend", "simulator", ...(timeout !== undefined ? ["--timeout", timeout] : []), file, ...programArgs];
    const env: NodeJS.ProcessEnv = { ...process.env, CUDASCRIPT_PROFILE: reportFile, CUDASCRIPT_PROFILE_GPU: gpu };
    // JSON on stdout: the program's own output goes to stderr.
    const jsonOnStdout = format === "json" && output === undefined;
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, runArgs, { stdio: ["inherit", jsonOnStdout ? process.stderr : "inherit", "inherit"], env });
      child.on("exit", (c, signal) => resolve(c ?? (signal ? 128 + (os.constants.signals[signal] ?? 1) : 1)));
      child.on("error", (e) => {
        console.error(`cudascript: cannot start the program: ${e.message}`);
        resolve(1);
      });
    });
    let report: ProfileReport;
    if (fs.existsSync(reportFile)) report = JSON.parse(fs.readFileSync(reportFile, "utf8")) as ProfileReport;
    else if (code === 0) {
      // The program ended well without loading cudascript: it launched no kernel.
      report = { version: 1, gpu, launches: [] };
    } else {
      console.error(`cudascript: the program ended (exit code ${code}) before any profile was written`);
      return code;
    }
    const text = format === "json" ? `${JSON.stringify(report, null, 1)}\n` : formatProfileText(report);
    if (output !== undefined) {
      try {
        fs.writeFileSync(output, text);
      } catch (e) {
        console.error(`cudascript: error CSR093: -o ${output}: cannot write the profile (${(e as Error).message}); name a writable file`);
        return 1;
      }
      console.error(`cudascript: profile of ${report.launches.length} launch${report.launches.length === 1 ? "" : "es"} written to ${output}`);
    } else {
      if (format === "text") process.stdout.write("\n");
      process.stdout.write(text);
    }
    return code;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
};
