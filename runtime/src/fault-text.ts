/** How a fault in a kernel reads, on every backend: "<title> at file:line:col in kernel 'k'<more>: <detail>". */
let cwd = "";
try {
  cwd = process.cwd();
} catch {
  /* no cwd */
}

/** File paths in messages: relative to the working directory when inside it. */
export function displayPath(file: string): string {
  if (cwd && file.startsWith(cwd + "/")) return file.slice(cwd.length + 1);
  return file;
}

/**
 * `what` ("<title>: <detail>") with its place in the kernel inserted after the title; `more` follows
 * the kernel's name (the simulator's device function, block and thread).
 */
export function placeFault(what: string, at: { readonly file: string; readonly line: number; readonly col: number } | undefined, kernel: string | undefined, more = ""): string {
  const [title, ...rest] = what.split(": ");
  const detail = rest.join(": ");
  const where = at ? ` at ${displayPath(at.file)}:${at.line}:${at.col}` : "";
  return `${title}${where}${kernel ? ` in kernel '${kernel}'` : ""}${more}${detail ? `: ${detail}` : ""}`;
}
