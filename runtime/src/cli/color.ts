/**
 * Whether a command colours what it writes to a stream. As https://no-color.org and Node.js itself:
 * FORCE_COLOR decides when it is set (as Node reads it: empty, 1, 2, 3 or true colour, anything else
 * does not); else NO_COLOR set to a non-empty value, NODE_DISABLE_COLORS or TERM=dumb turn colour
 * off; else colour only on a terminal.
 */
export function useColor(stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return ["", "1", "2", "3", "true"].includes(force);
  if (env.NO_COLOR || env.NODE_DISABLE_COLORS !== undefined || env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

const CODES = { red: [31, 39], yellow: [33, 39], cyan: [36, 39], gray: [90, 39], bold: [1, 22] } as const;

/** `text` in a colour when `on`, else as it is. */
export function paint(on: boolean, style: keyof typeof CODES, text: string): string {
  const [open, close] = CODES[style];
  return on ? `\x1b[${open}m${text}\x1b[${close}m` : text;
}
