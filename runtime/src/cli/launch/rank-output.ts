/**
 * Ranks' output, line by line, each line prefixed with its rank (`[rank 2] …`), so that lines of
 * different ranks never interleave inside one line. A last line without its newline is written when
 * the stream ends.
 */
import type { Readable, Writable } from "node:stream";

export function rankPrefix(rank: number | string): string {
  return `[rank ${rank}] `;
}

/** Copies `from` to `to`, each line with `prefix(line)` before it. */
export function pipeLines(from: Readable, to: Writable, prefix: (line: string) => { prefix: string; line: string }): Promise<void> {
  let pending = "";
  from.setEncoding("utf8");
  return new Promise((resolve) => {
    from.on("data", (chunk: string) => {
      const lines = (pending + chunk).split("\n");
      pending = lines.pop()!;
      if (lines.length === 0) return;
      to.write(lines.map((l) => { const p = prefix(l); return p.prefix + p.line; }).join("\n") + "\n");
    });
    from.on("end", () => {
      if (pending) {
        const p = prefix(pending);
        to.write(p.prefix + p.line + "\n");
      }
      resolve();
    });
    from.on("error", () => resolve());
  });
}

/** `srun --label` writes `  2: text`: the rank's own prefix instead. */
export function relabelSlurmLine(line: string): { prefix: string; line: string } {
  const m = /^\s*(\d+): ?(.*)$/.exec(line);
  return m ? { prefix: rankPrefix(m[1]!), line: m[2]! } : { prefix: "", line };
}
