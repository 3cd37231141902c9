/**
 * The frame of a kernel function shared by its plain and fission forms: the launch's arguments and
 * dimensions, scalar parameters, the block registers, the sanitizer's state and the `let`s of the
 * function's scalars and temporaries.
 */
import type { SimKernelInfo } from "../artifact-types";
import type { EmitContext } from "./context";
import { zeroJs } from "./values";
import { GLOBAL_LETS, globalSanSetup } from "./sanitize-global";
import { writtenSetup } from "./shadow-values";

/** Setup and declaration lines of one kernel (declLines also of a device function). */
export class KernelFrame {
  constructor(private readonly cx: EmitContext) {}

  kernelSetup(): string[] {
    const setup: string[] = ["const $A = L.args;"];
    this.cx.fn.params.forEach((p, i) => {
      if (p.type.kind === "array") this.cx.decls.declareKernelParamArray(p, i, setup);
      else setup.push(`const ${this.cx.vn(p)}$in = $A[${i}];`);
    });
    setup.push("const $gdx = L.grid[0], $gdy = L.grid[1], $gdz = L.grid[2], $bdx = L.block[0], $bdy = L.block[1], $bdz = L.block[2];");
    setup.push("const $nT = $bdx * $bdy * $bdz, $dynBuf = L.dynBuf;");
    return setup;
  }

  paramLets(): string {
    const ps = this.cx.fn.params.filter((p) => p.type.kind === "scalar");
    return ps.length ? `let ${ps.map((p) => `${this.cx.vn(p)} = ${this.cx.vn(p)}$in`).join(", ")};` : "";
  }

  blockHeader(): string[] {
    return [
      "$bx = $b % $gdx; $by = (($b / $gdx) | 0) % $gdy; $bz = ($b / ($gdx * $gdy)) | 0;",
      "$cbx = $bx; $cby = $by; $cbz = $bz; $cbdx = $bdx; $cbdy = $bdy; $cbdz = $bdz; $cgdx = $gdx; $cgdy = $gdy; $cgdz = $gdz;",
    ];
  }

  sanSetup(info: SimKernelInfo): string[] {
    // A cooperative kernel's blocks are alive together: each has its own sanitizer (rt.blockSanitizer).
    if (this.cx.san && this.cx.cooperative) return [`const $S = $san = rt.blockSanitizer(${JSON.stringify({ name: info.name, file: info.file, line: info.line })}, $bdx, $bdy, $bdz, $b); $S.setSites($sites); const $SS = $S.S;`, ...globalSanSetup(this.cx, info), ...writtenSetup(this.cx)];
    return this.cx.san ? [`const $S = $san = rt.sanitizer(${JSON.stringify({ name: info.name, file: info.file, line: info.line })}, $bdx, $bdy, $bdz); $S.setSites($sites); const $SS = $S.S;`, ...globalSanSetup(this.cx, info), ...writtenSetup(this.cx)] : [];
  }

  declLines(setup: string[]): string[] {
    const out = [...setup];
    if (this.cx.san) out.push(`let $wd = 1048576, $sw = 0, $sr = 0, $E = 0, $E1 = 0, $BS = 0, $EB = 0, $M1 = 0, $M2 = 0, $M3 = 0, $ud = 0, ${GLOBAL_LETS};`);
    else if (this.cx.me.opts.watchdog) out.push("let $wd = 1048576;");
    const flatTemps = this.cx.memory.flatTempsDecl();
    if (flatTemps) out.push(flatTemps);
    const undefinedTemps = this.cx.undef.decl();
    if (undefinedTemps) out.push(undefinedTemps);
    const vars = [...this.cx.scalars].filter((v) => !v.isParam);
    if (vars.length) out.push(`let ${vars.map((v) => `${this.cx.vn(v)} = ${zeroJs(v.type)}`).join(", ")};`);
    const indexTemps = this.cx.memory.indexTempsDecl();
    if (indexTemps) out.push(indexTemps);
    return out;
  }
}
