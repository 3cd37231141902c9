/**
 * Settings: defaults, then `initializationOptions`, then the client's `workspace/configuration`
 * section `cudascript` (or the pushed `didChangeConfiguration` settings for clients that cannot be
 * asked). Unknown or ill-typed values fall back to the layer below; nothing here throws.
 */

export interface ServerSettings {
  /** "auto" (the local GPU's architecture when one is found, else sm_80) or e.g. "sm_86". */
  targetArch: string;
  diagnostics: {
    /** Delay between the last edit and the re-check, in ms (0 = check on every change). */
    debounceMs: number;
    /** URL or file URI of docs/diagnostics.md for `codeDescription`; empty = find it next to the installation. */
    docsUrl: string;
  };
  /** NVRTC library to load instead of discovering one (passed to the compiler as nvrtcPath). */
  nvrtcPath: string;
  resources: {
    /** Compile kernels with NVRTC in the background to learn registers per thread. */
    enabled: boolean;
    /** Delay after the last edit before a background compile, in ms. */
    debounceMs: number;
  };
  codeLens: { enabled: boolean };
}

export const DEFAULT_SETTINGS: ServerSettings = {
  targetArch: "auto",
  diagnostics: { debounceMs: 150, docsUrl: "" },
  nvrtcPath: "",
  resources: { enabled: true, debounceMs: 750 },
  codeLens: { enabled: true },
};

type Json = Record<string, unknown>;
const isObject = (x: unknown): x is Json => typeof x === "object" && x !== null && !Array.isArray(x);

function num(x: unknown, fallback: number, min = 0, max = 60_000): number {
  return typeof x === "number" && Number.isFinite(x) ? Math.min(max, Math.max(min, x)) : fallback;
}
function str(x: unknown, fallback: string): string {
  return typeof x === "string" ? x.trim() : fallback;
}
function bool(x: unknown, fallback: boolean): boolean {
  return typeof x === "boolean" ? x : fallback;
}

/**
 * Lays `input` over `base`. Accepts the nested shape above, a `{ cudascript: {...} }` wrapper, and the
 * flat dotted keys editors sometimes send (`"diagnostics.debounceMs": 0`).
 */
export function mergeSettings(base: ServerSettings, input: unknown): ServerSettings {
  if (!isObject(input)) return base;
  let raw: Json = isObject(input.cudascript) ? input.cudascript : input;
  raw = expandDotted(raw);
  const diag = isObject(raw.diagnostics) ? raw.diagnostics : {};
  const res = isObject(raw.resources) ? raw.resources : {};
  const lens = isObject(raw.codeLens) ? raw.codeLens : {};
  const arch = str(raw.targetArch, base.targetArch);
  return {
    targetArch: arch === "" ? "auto" : arch,
    diagnostics: {
      debounceMs: num(diag.debounceMs, base.diagnostics.debounceMs),
      docsUrl: str(diag.docsUrl, base.diagnostics.docsUrl),
    },
    nvrtcPath: str(raw.nvrtcPath, base.nvrtcPath),
    resources: {
      enabled: bool(res.enabled, base.resources.enabled),
      debounceMs: num(res.debounceMs, base.resources.debounceMs),
    },
    codeLens: { enabled: bool(lens.enabled, base.codeLens.enabled) },
  };
}

function expandDotted(raw: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(raw)) {
    if (!k.includes(".")) {
      out[k] = isObject(v) && isObject(out[k]) ? { ...(out[k] as Json), ...v } : v;
      continue;
    }
    const parts = k.split(".");
    let cur = out;
    for (const p of parts.slice(0, -1)) {
      if (!isObject(cur[p])) cur[p] = {};
      cur = cur[p] as Json;
    }
    cur[parts[parts.length - 1]!] = v;
  }
  return out;
}
