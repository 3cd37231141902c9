/**
 * The register cap of `cuda.jit(fn, { maxRegisters })` as a PTX `.maxnreg` directive.
 *
 * NVRTC's `--maxrregcount` only reaches ptxas when NVRTC itself assembles (an `sm_XX` target); the
 * `compute_XX` PTX the GPU backend loads carries no trace of it, so the driver's JIT compiled capped
 * kernels uncapped. `.maxnreg N` on each `.entry` travels with the PTX — into the disk cache, the
 * PTX the esbuild plugin embeds and the driver's JIT — and ptxas honours it like the option.
 * (NVRTC 11.8 has no `__maxnreg__` to say it in the C++.)
 */

/** `ptx` with `.maxnreg maxRegisters` added to every `.entry` that has no `.maxnreg` of its own. */
export function capRegistersInPtx(ptx: string, maxRegisters: number): string {
  let out = "";
  let from = 0;
  const entry = /\.entry\s+[\w$.]+\s*\(/g;
  for (let m = entry.exec(ptx); m; m = entry.exec(ptx)) {
    // Parameters hold no parentheses; the body starts at the first "{" after them. Between the two
    // sit the entry's performance directives (.maxntid, .reqntid, .maxnreg, …).
    const close = ptx.indexOf(")", m.index + m[0].length);
    const body = close < 0 ? -1 : ptx.indexOf("{", close);
    if (body < 0) break;
    const directives = ptx.slice(close + 1, body);
    if (!/\.maxnreg\b/.test(directives)) {
      out += `${ptx.slice(from, close + 1)}\n.maxnreg ${maxRegisters}${directives}`;
      from = body;
    }
    entry.lastIndex = body;
  }
  return out + ptx.slice(from);
}
