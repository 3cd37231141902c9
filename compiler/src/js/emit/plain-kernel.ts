/**
 * A kernel without synchronisation: a plain loop nest over the block's threads, with a second copy of
 * the body without the bounds checks that one test per block proves (in-range.ts), and for 1-D launches
 * a flat loop over the grid index (flat-grid.ts).
 */
import type { SimKernelInfo } from "../artifact-types";
import { inRangeCondition, planInRange } from "../in-range";
import { planFlatGrid } from "../flat-grid";
import { forEachArrayDecl } from "./arrays";
import { SAN_BEGIN, SAN_THREAD, type EmitContext } from "./context";
import { GLOBAL_THREAD, usesGlobalInline } from "./sanitize-global";
import { DEFAULT_RECURSION_DEPTH } from "../../ir/recursion";
import { profileBlockStart, profileKernelEnd, profileKernelSetup } from "./profile";
import { BulkPlanner } from "./profile-bulk";

/** The loop-nest form of a kernel. */
export class PlainKernelEmitter {
  constructor(private readonly cx: EmitContext) {}

  emitFast(jsName: string, info: SimKernelInfo): string {
    this.cx.mode = "fast";
    const setup = this.cx.frame.kernelSetup();
    setup.push(...this.cx.frame.sanSetup(info));
    const perBlock: string[] = [];
    forEachArrayDecl(this.cx.fn.body, (s) => this.cx.decls.declareBodyArray(s, undefined, setup, perBlock));
    this.cx.decls.deviceShared(setup, perBlock);
    // Profiling: what can be counted for the whole block at once, after its threads (profile-bulk.ts);
    // planned before the body is emitted, which then leaves those out.
    const ps = this.cx.me.profile;
    const bulk = ps?.bulk && !this.cx.san ? new BulkPlanner(this.cx, ps, this.cx.fn.body, undefined).plan(this.cx.fn.body) : [];
    const body: string[] = [];
    this.cx.statements.tstmts(this.cx.fn.body, body);
    // Where one check per block proves the thread-indexed accesses in range, a second copy of the body
    // without their checks runs the blocks that pass it (in-range.ts).
    const plan = planInRange(this.cx.fn);
    const provenBody: string[] = [];
    if (plan) {
      this.cx.proven = plan.accesses;
      this.cx.statements.tstmts(this.cx.fn.body, provenBody);
      this.cx.proven = undefined;
    }
    const resetParams = [...this.cx.assignedParams].map((p) => `${this.cx.vn(p)} = ${this.cx.vn(p)}$in;`);
    const flat = plan && !this.cx.san && !this.cx.me.profile && perBlock.length === 0 ? this.flatGridLoop(plan, resetParams) : undefined;
    const threads = (b: string[]) => [
      "for ($tz = 0; $tz < $bdz; $tz++) for ($ty = 0; $ty < $bdy; $ty++) {",
      "const $r = ($tz * $bdy + $ty) * $bdx;",
      "$thr: for ($tx = 0; $tx < $bdx; $tx++) {",
      "$t = $r + $tx;",
      this.cx.memory.usesSharedSan() ? SAN_THREAD : "",
      usesGlobalInline(this.cx) ? GLOBAL_THREAD : "",
      ...resetParams,
      ...b,
      "}",
      "}",
    ];
    const lines = [
      `function ${jsName}(L, $b0, $b1) {`,
      `$depth = 0; $depthLimit = ${this.cx.fn.options.recursionDepth ?? DEFAULT_RECURSION_DEPTH};`,
      ...this.cx.frame.declLines(setup),
      ...this.cx.memory.privLines,
      this.cx.frame.paramLets(),
      "let $bx = 0, $by = 0, $bz = 0, $tx = 0, $ty = 0, $tz = 0, $t = 0;",
      flat ? "let $g = 0, $flat = false, $bs = $b0;" : "",
      ...profileKernelSetup(this.cx),
      "try {",
      ...(flat ?? []),
      `for (let $b = ${flat ? "$bs" : "$b0"}; $b < $b1; $b++) {`,
      ...this.cx.frame.blockHeader(),
      ...perBlock,
      profileBlockStart(this.cx),
      this.cx.san ? SAN_BEGIN : "",
      ...(plan ? [`if (${inRangeCondition(plan, (p) => this.cx.arrayInfo(p).dims[0]!)}) {`, ...threads(provenBody), "} else {", ...threads(body), "}"] : threads(body)),
      ...bulk,
      "}",
      `} catch ($e) { ${flat ? "if ($flat) { $bx = ($g / $bdx) | 0; $tx = $g - $bx * $bdx; } " : ""}throw rt.threadError($e, ${JSON.stringify(info.name)}, $bx, $by, $bz, $tx, $ty, $tz); }${profileKernelEnd(this.cx)}`,
      "}",
    ];
    return lines.filter((l) => l !== "").join("\n");
  }

  /**
   * A 1-D launch's blocks whose checks the in-range test proves, as one loop over the grid index
   * (flat-grid.ts); the block loop after it starts at `$bs`, where this one stopped.
   */
  private flatGridLoop(plan: NonNullable<ReturnType<typeof planInRange>>, resetParams: string[]): string[] | undefined {
    const flat = planFlatGrid(this.cx.fn);
    if (!flat) return undefined;
    const body: string[] = [];
    this.cx.proven = plan.accesses;
    this.cx.flatGrid = true;
    this.cx.statements.tstmts(flat.body, body);
    const narrow = flat.narrow ? this.cx.emit.ex(flat.narrow) : undefined;
    this.cx.flatGrid = false;
    this.cx.proven = undefined;
    // Every part of the test is monotonic in the block index: true for the first and the last block of
    // a range means true for all of it. The last block is often partial (`if (i < n)`): then the range
    // ends one block earlier.
    const proves = (b: string) => `(($bx = ${b}), ${inRangeCondition(plan, (p) => this.cx.arrayInfo(p).dims[0]!)})`;
    const end = narrow ? `Math.min($pe * $bdx, ${narrow})` : "$pe * $bdx";
    return [
      `if ($gdy === 1 && $gdz === 1 && $bdy === 1 && $bdz === 1 && $b1 > $b0 && ${proves("$b0")}) {`,
      `const $pe = ${proves("$b1 - 1")} ? $b1 : $b1 - 1 > $b0 && ${proves("$b1 - 2")} ? $b1 - 1 : $b0;`,
      "if ($pe > $b0) {",
      "$flat = true;",
      `const $ge = ${end};`,
      "$thr: for ($g = $b0 * $bdx; $g < $ge; $g++) {",
      ...resetParams,
      ...body,
      "}",
      "$flat = false;",
      "$bs = $pe;",
      "}",
      "}",
    ];
  }
}
