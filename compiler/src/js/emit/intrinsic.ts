/**
 * Pure intrinsics (math, bit operations, complex functions, libdevice, fences) and `viewIndex` as
 * JavaScript: each is its record's JavaScript lowering (compiler/src/intrinsics/), given the argument
 * texts and types. Synchronising intrinsics never reach it: normalize.ts lifts them into statements
 * (sync.ts).
 */
import { intrinsicRecord } from "../../intrinsics";
import type * as IR from "../../ir/nodes";
import type { ScalarType } from "../../ir/types";
import type { EmitContext } from "./context";
import { globalFence } from "./sanitize-global";
import { profileFlop } from "./profile";

/** Pure intrinsic calls of one function. */
export class IntrinsicEmitter {
  constructor(private readonly cx: EmitContext) {}

  intrinsic(e: IR.IntrinsicExpr): string {
    if (e.name === "viewIndex") return this.cx.memory.viewIndex(e);
    if (e.name === "arrayView") throw new Error(`CudaScript simulator: the view '${e.view?.name}' is only a device-function argument`);
    const fence = globalFence(this.cx, e.name);
    if (fence) return fence;
    const js = intrinsicRecord(e.name).js;
    if (!js) throw new Error(`CudaScript simulator: '${e.name}' cannot be used here (synchronisation inside an expression was not lifted)`);
    // Profiling: a fused multiply-add is two floating-point operations, as Nsight Compute counts it.
    const dt = e.type.kind === "scalar" ? e.type.dtype : "f64";
    if (e.name === "fma") return profileFlop(this.cx, dt, profileFlop(this.cx, dt, this.lower(e, js)));
    return this.lower(e, js);
  }

  private lower(e: IR.IntrinsicExpr, js: NonNullable<ReturnType<typeof intrinsicRecord>["js"]>): string {
    return js({
      args: e.args.map((a) => this.cx.emit.ex(a)),
      dtype: e.type.kind === "scalar" ? e.type.dtype : "f64",
      argDTypes: e.args.map((a) => (a.type.kind === "scalar" ? a.type.dtype : "f64")),
      helper: (name, code) => this.cx.me.helper(name, code),
      i64: (code) => this.cx.i64(code),
      laneId: () => this.cx.values.special({ k: "special", type: e.type as ScalarType, reg: "laneid", axis: "x", span: e.span }),
    });
  }
}
