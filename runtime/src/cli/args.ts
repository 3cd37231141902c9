import { parseArgs as parseArgv } from "node:util";

/**
 * A subcommand takes its arguments (after the command name) and resolves to an exit code, or to
 * undefined when a program it started in this process owns the exit code (`cudascript run`).
 */
export type Command = (argv: string[]) => Promise<number | undefined>;

export function printUsageError(message: string, usage: string): number {
  console.error(`cudascript: ${message}\n\n${usage}`);
  return 2;
}

/** One option as `node:util` `parseArgs` declares it: its type says whether it takes a value. */
export interface OptionSpec {
  readonly type: "string" | "boolean";
  readonly short?: string;
}
export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** Every command has these: `-h`/`--help` prints its usage, `--version` the package's version. */
const COMMON_OPTIONS: OptionSpecs = { help: { type: "boolean", short: "h" }, version: { type: "boolean" } };

export interface ParsedArgs {
  readonly positional: string[];
  readonly flags: Map<string, string | true>;
  /** With `program`: the arguments after the program file, handed to the program untouched. */
  readonly programArgs: string[];
}

export interface ParseOptions {
  /**
   * The first positional argument is a program to run (`cudascript run [options] file.ts [args...]`,
   * as `node [options] file.js [args...]`): options are read only before it, and everything after
   * it belongs to the program, even `-h` or an option of ours.
   */
  readonly program?: boolean;
}

/**
 * Flag parsing by Node's own `util.parseArgs` (strict): `--name value`, `--name=value`, boolean
 * `--name`, `-x` for an option with a `short` letter, `--` ends the options. Anything not declared is
 * an error. An empty value (`--timeout=`) is an error too: it would otherwise silently mean "the
 * default" or "no limit". `--help`/`-h` and `--version` are added to every command's options.
 */
export function parseArgs(argv: readonly string[], options: OptionSpecs, opts: ParseOptions = {}): ParsedArgs | { error: string } {
  const all = { ...COMMON_OPTIONS, ...options };
  let ours = [...argv];
  let programArgs: string[] = [];
  if (opts.program) {
    const at = firstPositionalIndex(argv, all);
    if (at !== undefined) {
      ours = argv.slice(0, at + 1);
      programArgs = argv.slice(at + 1);
    }
  }
  let parsed: ReturnType<typeof parseArgv>;
  try {
    parsed = parseArgv({ args: ours, options: all, strict: true, allowPositionals: true });
  } catch (e) {
    return { error: describeParseError(e as Error & { code?: string }) };
  }
  const flags = new Map<string, string | true>();
  for (const [name, value] of Object.entries(parsed.values)) {
    const v = Array.isArray(value) ? value[value.length - 1] : value;
    if (v === undefined || v === false) continue;
    if (v === "") return { error: `option '--${name}' needs a value, got an empty one` };
    flags.set(name, v === true ? true : String(v));
  }
  return { positional: parsed.positionals, flags, programArgs };
}

/**
 * Index in `argv` of the first positional argument (the program file), found with parseArgs' own
 * tokens so that an option's value (`--timeout 5`) is never taken for it. Non-strict here: an unknown
 * option is reported by the strict parse of the arguments before the file.
 */
function firstPositionalIndex(argv: readonly string[], options: OptionSpecs): number | undefined {
  const { tokens } = parseArgv({ args: [...argv], options, strict: false, allowPositionals: true, tokens: true });
  return tokens.find((t) => t.kind === "positional")?.index;
}

/**
 * The usual start of a command: parses `argv`; prints the usage for `-h`/`--help` and the version for
 * `--version`. Returns the exit code when the command is done (help, version, usage error), else the
 * parsed arguments.
 */
export function startCommand(argv: readonly string[], options: OptionSpecs, usage: string, opts: ParseOptions = {}): ParsedArgs | number {
  const args = parseArgs(argv, options, opts);
  if ("error" in args) return printUsageError(args.error, usage);
  if (args.flags.has("help")) {
    console.log(usage);
    return 0;
  }
  if (args.flags.has("version")) {
    console.log(packageVersion());
    return 0;
  }
  return args;
}

export function packageVersion(): string {
  return (require("../../package.json") as { version: string }).version;
}

function describeParseError(e: Error & { code?: string }): string {
  const option = /'(-[^' ,]+)/.exec(e.message)?.[1] ?? "";
  switch (e.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option '${option}'`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      if (/does not take an argument/.test(e.message)) return `option '${option}' takes no value`;
      if (/ambiguous/.test(e.message)) return `option '${option}' needs a value (for a value that starts with '-', write ${option}=-…)`;
      return `option '${option}' needs a value`;
    default:
      return e.message.split("\n")[0]!;
  }
}

/**
 * A numeric option's text as a number: plain decimal digits (an optional fraction when not
 * `integer`), from `min` to `max`. Returns an error message otherwise: no exponents, signs, hex or
 * "Infinity", which Number() would accept.
 */
export function parseNumberOption(name: string, text: string, opts: { integer: boolean; min: number; max: number; unit?: string }): number | { error: string } {
  const ok = opts.integer ? /^\d+$/.test(text) : /^(\d+(\.\d*)?|\.\d+)$/.test(text);
  const n = ok ? Number(text) : NaN;
  if (ok && n >= opts.min && n <= opts.max) return n;
  // Only now: toLocaleString loads ICU's data, tens of milliseconds at every start otherwise.
  const unit = opts.unit ? ` ${opts.unit}` : "";
  const what = `${opts.integer ? "a whole number" : "a number"}${unit} from ${opts.min} to ${opts.max.toLocaleString("en-US")}`;
  return { error: `--${name} takes ${what}, not '${text}'` };
}
