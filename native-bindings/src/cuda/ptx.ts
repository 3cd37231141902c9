// Reads the kernel signatures out of PTX text: each `.entry` with the byte size and alignment of
// every `.param`. The driver copies exactly that many bytes from each kernelParams[i] at launch, so
// checking argument buffers against these sizes before cuLaunchKernel turns a packing mistake into
// a clear error instead of garbage arguments (or a read past the end of a buffer).

export interface PtxParam {
  /** The PTX parameter name, e.g. "saxpy_param_0". */
  name: string;
  /** Bytes the driver copies for this parameter. */
  size: number;
  /** Alignment from `.align N`, else the element size. */
  align: number;
  /** The PTX type, e.g. ".u64", ".f32", ".b8" (for `.b8 name[16]` structs). */
  type: string;
}

export interface PtxEntry {
  name: string;
  params: PtxParam[];
}

export interface PtxInfo {
  /** `.version 7.8` → { major: 7, minor: 8 }. */
  version?: { major: number; minor: number };
  /** `.target sm_80` → "sm_80" (first target token). */
  target?: string;
  entries: PtxEntry[];
}

const TYPE = /^\.(b|s|u|f)(8|16|32|64)$/;

/** Parses the `.version`, `.target` and the `.entry` signatures of a PTX module. */
export function parsePtx(ptx: string): PtxInfo {
  const text = stripComments(ptx);
  const info: PtxInfo = { entries: [] };
  const version = /(^|\s)\.version\s+(\d+)\.(\d+)/.exec(text);
  if (version) info.version = { major: Number(version[2]), minor: Number(version[3]) };
  const target = /(^|\s)\.target\s+([A-Za-z0-9_]+)/.exec(text);
  if (target?.[2]) info.target = target[2];
  const entry = /(^|\s)\.entry\s+([A-Za-z_$%][\w$]*)\s*(\()?/g;
  for (let m = entry.exec(text); m; m = entry.exec(text)) {
    const name = m[2] ?? "";
    const params: PtxParam[] = [];
    if (m[3]) {
      const open = m.index + m[0].length - 1;
      const close = text.indexOf(")", open);
      const list = text.slice(open + 1, close < 0 ? undefined : close);
      for (const item of list.split(",")) {
        const param = parseParam(item);
        if (param) params.push(param);
      }
      entry.lastIndex = close < 0 ? text.length : close;
    }
    info.entries.push({ name, params });
  }
  return info;
}

function parseParam(declaration: string): PtxParam | undefined {
  const tokens = declaration.replace(/\[/g, " [").trim().split(/\s+/);
  if (tokens[0] !== ".param") return undefined;
  let elementSize = 0;
  let align = 0;
  let type = "";
  let name = "";
  let count = 1;
  for (let i = 1; i < tokens.length; i++) {
    const token = tokens[i] ?? "";
    if (token === ".align") {
      align = Number(tokens[++i]);
      continue;
    }
    const t = TYPE.exec(token);
    if (t) {
      elementSize = Number(t[2]) / 8;
      type = token;
      continue;
    }
    if (token.startsWith(".")) continue; // .ptr .global .const ...
    if (token.startsWith("[")) {
      count = Number(token.slice(1, token.indexOf("]")));
      continue;
    }
    name = token;
  }
  if (!elementSize || !name || !Number.isFinite(count)) return undefined;
  return { name, size: elementSize * count, align: align || elementSize, type };
}

function stripComments(ptx: string): string {
  return ptx.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/\/\/[^\n]*/g, "");
}
