// The `.file` table of PTX with line info: `.file 1 "/path/to/kernels.ts"`. ptxas reads the name as a
// C-like string that must be ASCII, and it takes octal escapes (\042) but not \" — NVRTC itself writes
// a `"` in a name as \", which ptxas rejects (CUDA_ERROR_INVALID_PTX at load). So names are read with
// every escape NVRTC writes, and written with octal escapes for `"`, `\` and every non-ASCII byte.

const FILE_LINE = /^(\s*\.file\s+(\d+)\s+)"((?:[^"\\]|\\.)*)"/gm;

/** A file name as a PTX string literal (with its quotes) that ptxas accepts. */
export function ptxString(name: string): string {
  let out = '"';
  for (const byte of Buffer.from(name, "utf8")) {
    const printable = byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c;
    out += printable ? String.fromCharCode(byte) : `\\${byte.toString(8).padStart(3, "0")}`;
  }
  return `${out}"`;
}

/** Decodes the contents of a PTX string literal (octal, \xHH and single-character escapes; UTF-8). */
export function decodePtxString(body: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(body.slice(i + 1));
    const hex = /^x([0-9a-fA-F]{1,2})/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(parseInt(octal[0], 8) & 0xff);
      i += octal[0].length;
    } else if (hex) {
      bytes.push(parseInt(hex[1]!, 16));
      i += hex[0].length;
    } else {
      const next = body[++i] ?? "";
      const simple: Record<string, number> = { n: 10, t: 9, r: 13 };
      bytes.push(simple[next] ?? next.charCodeAt(0));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** The `.file` table: file number → decoded name. */
export function ptxFiles(ptx: string): Map<number, string> {
  const files = new Map<number, string>();
  for (const m of ptx.matchAll(FILE_LINE)) files.set(Number(m[2]), decodePtxString(m[3]!));
  return files;
}

/** Rewrites every `.file` name through `rename` (decoded name in, name out), escaped for ptxas. */
export function rewritePtxFiles(ptx: string, rename: (name: string) => string): string {
  return ptx.replace(FILE_LINE, (_line, head: string, _n: string, body: string) => head + ptxString(rename(decodePtxString(body))));
}
