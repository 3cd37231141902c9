/** A subcommand takes its arguments (after the command name) and resolves to an exit code. */
export type Command = (argv: string[]) => Promise<number>;

export function printUsageError(message: string, usage: string): number {
  console.error(`cudascript: ${message}\n\n${usage}`);
  return 2;
}

export interface ParsedArgs {
  readonly positional: string[];
  readonly flags: Map<string, string | true>;
}

/**
 * Minimal flag parsing: `--name value`, `--name=value`, boolean `--name`; `booleans` lists flags that
 * take no value. Unknown flags are reported by the caller through `allowed`.
 */
export function parseArgs(argv: string[], booleans: readonly string[], allowed: readonly string[]): ParsedArgs | { error: string } {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("-") && a !== "-") {
      const eq = a.indexOf("=");
      const name = (eq > 0 ? a.slice(0, eq) : a).replace(/^--?/, "");
      if (!allowed.includes(name)) return { error: `unknown option '${a}'` };
      if (booleans.includes(name)) flags.set(name, true);
      else if (eq > 0) flags.set(name, a.slice(eq + 1));
      else {
        const v = argv[i + 1];
        if (v === undefined || v.startsWith("--")) return { error: `option '${a}' needs a value` };
        flags.set(name, v);
        i++;
      }
    } else positional.push(a);
  }
  return { positional, flags };
}
