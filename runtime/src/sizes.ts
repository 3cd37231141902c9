/** Byte counts as people read and write them: "64 MiB", "1.5 GiB" (binary units, like GPU tools report). */

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"] as const;

/** `1536` → "1.5 KiB", `4e12` → "3.6 TiB"; whole bytes below 1 KiB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return `${bytes} bytes`;
  let n = bytes;
  let u = 0;
  while (Math.abs(n) >= 1024 && u < UNITS.length - 1) {
    n /= 1024;
    u++;
  }
  const text = u === 0 ? String(n) : n >= 100 ? n.toFixed(0) : n.toFixed(1).replace(/\.0$/, "");
  return `${text} ${UNITS[u]}`;
}

/**
 * "8GiB", "512 MiB", "1.5G", "1048576" → bytes (K, M, G, T, P are binary multiples, as in
 * formatBytes); undefined for anything else.
 */
export function parseBytes(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([KMGTP]?)(i?B)?\s*$/i.exec(text);
  if (!m || (m[3] && m[3].toLowerCase() === "ib" && !m[2])) return undefined;
  const power = m[2] ? "KMGTP".indexOf(m[2].toUpperCase()) + 1 : 0;
  const n = Math.floor(Number(m[1]) * 1024 ** power);
  return Number.isSafeInteger(n) ? n : undefined;
}
