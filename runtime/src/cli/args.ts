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

export interface ParsedArgs {
  readonly positional: string[];
  readonly flags: Map<string, string | true>;
}

/**
 * Flag parsing by Node's own `util.parseArgs` (strict): `--name value`, `--name=value`, boolean
 * `--name`, one-letter names also as `-x`, `--` ends the options. `booleans` lists flags that take no
 * value; anything not in `allowed` is an error. An empty value (`--timeout=`) is an error too: it
 * would otherwise silently mean "the default" or "no limit".
 */
export function parseArgs(argv: string[], booleans: readonly string[], allowed: readonly string[]): ParsedArgs | { error: string } {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const name of allowed) options[name] = { type: booleans.includes(name) ? "boolean" : "string", ...(name.length === 1 ? { short: name } : {}) };
  let parsed: ReturnType<typeof parseArgv>;
  try {
    parsed = parseArgv({ args: argv, options, strict: true, allowPositionals: true });
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
  return { positional: parsed.positionals, flags };
}

function describeParseError(e: Error & { code?: string }): string {
  const option = /'(-[^' ]+)/.exec(e.message)?.[1] ?? "";
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
