/**
 * The simulator's form of a kernel that synchronises the grid (`g.sync()`, docs/kernel-language.md#grid-synchronisation).
 *
 * A grid barrier needs every block of the grid alive at once, which the usual block loop (one block
 * after another, reusing one set of per-thread storage) cannot give. So the fission form of such a
 * kernel becomes a generator per block: `function* $k$block(L, $b)` holds one block's state (its
 * per-thread storage, shared arrays, sanitizer) and `yield`s at each `g.sync()`, after the piece loops
 * before it have run every thread of the block to that point. The kernel's `run(L, b0, b1)` hands the
 * generators to `rt.runGrid`, which advances every block to its next grid barrier (or its end) in turn,
 * in one thread: no block passes a barrier before every block reached it, and a block that ends while
 * others wait is a divergent grid barrier (CSR035). The executor runs such a kernel on one executor with
 * all its blocks in one call (runtime/src/simulator/executor.ts), after the co-residency check.
 *
 * Module-level state that device functions read (`$cbx`… the current block, `$shN` shared arrays, `$san`)
 * belongs to whichever block ran last, so each block restores its own after every barrier.
 */

import { GLOBAL_REFRESH } from "./emit/sanitize-global";

/**
 * The code of one `g.sync()`. The block arrives when any of its threads is still running there (threads
 * that returned earlier sit at `$st` 1 even outside masked code); a block none of whose threads reaches it
 * goes on without yielding, and runGrid reports it if other blocks wait. Under the sanitizer every thread
 * must arrive: a thread that returned or branched around a g.sync() its block reaches is CSR035 (on a GPU
 * the block's arrival is made by one thread, so the barrier may never complete).
 */
export function gridSyncCode(site: number, sanitize: boolean, resume: string): string {
  return [
    "{ let $arr = 0; for (let $u = 0; $u < $nT; $u++) if ($st[$u] === 0) { $arr = 1; break; }",
    sanitize ? `if ($arr !== 0) $S.gridBarrier($sites[${site}], $st, $nT);` : "",
    `if ($arr !== 0) { yield ${site}; ${resume} } }`,
  ]
    .filter((l) => l !== "")
    .join("\n");
}

export interface CooperativeParts {
  /** Declarations and per-launch setup (run once per block here). */
  readonly setup: readonly string[];
  /** The block's own start (block index, shared arrays zeroed, parameters, sanitizer). */
  readonly blockStart: readonly string[];
  /** The pieces and synchronisations. */
  readonly code: readonly string[];
  readonly catchLine: string;
  /** Module-level shared-array variables this block must restore after a barrier. */
  readonly shared: readonly string[];
  readonly sanitize: boolean;
  readonly kernelName: string;
}

/** What a block re-establishes after every grid barrier (see the header). */
export function resumeCode(shared: readonly string[], sanitize: boolean): string {
  const parts = ["$cbx = $bx; $cby = $by; $cbz = $bz; $cbdx = $bdx; $cbdy = $bdy; $cbdz = $bdz; $cgdx = $gdx; $cgdy = $gdy; $cgdz = $gdz;"];
  for (const s of shared) parts.push(`${s} = ${s}$own;`);
  // A grid barrier is also a block barrier: every access before it is ordered before every access after it.
  // The global race detector starts the block's next grid phase (emit/sanitize-global.ts).
  if (sanitize) parts.push(`$san = $S; $S.sync(); $G.gridResume($b); $E = $S.E; $E1 = $S.E1; $BS = $S.BS; $EB = $S.EB; ${GLOBAL_REFRESH}`);
  return parts.join(" ");
}

/** The generator per block and the kernel's `run`. */
export function cooperativeKernel(jsName: string, p: CooperativeParts): string {
  return [
    `function* ${jsName}$block(L, $b) {`,
    ...p.setup,
    "try {",
    ...p.blockStart,
    ...p.shared.map((s) => `const ${s}$own = ${s};`),
    ...p.code,
    `} ${p.catchLine}`,
    "}",
    `function ${jsName}(L, $b0, $b1) { rt.runGrid(${jsName}$block, L, $b0, $b1, ${JSON.stringify(p.kernelName)}, $sites); }`,
  ]
    .filter((l) => l !== "")
    .join("\n");
}
