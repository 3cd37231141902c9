/**
 * A seeded-bug corpus entry: each `test/corpus/buggy/NAME.ts` holds a kernel with one bug, marked on
 * its line with `// @bug <kind>`, and exports `bug` saying how to launch it. The simulator must report
 * the bug with that kind and line (the sanitizer on; out-of-bounds also without it).
 */
export type BugKind = "out-of-bounds" | "race" | "divergent-barrier" | "uninitialized-shared" | "undefined-value" | "timeout" | "divergent-warp" | "global-race" | "grid-race";

export interface BugCase {
  readonly kernel: string;
  readonly grid: number | readonly number[];
  readonly block: number | readonly number[];
  readonly sharedMem?: number;
  /** Fresh host arguments (typed arrays and scalars). */
  args(): unknown[];
  /** Whether only the sanitizer finds it (races, divergence, uninitialised reads, the runaway loop's line). */
  readonly needsSanitizer: boolean;
}
