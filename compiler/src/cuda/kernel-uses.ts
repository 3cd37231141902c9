/**
 * What a kernel uses that the GPU runtime must check before it compiles or launches it, read from the IR
 * the kernel artifact carries (the runtime loads this module without the TypeScript front end):
 *
 * - the GPU features that need a minimum compute capability (GPU_FEATURES, the ONE table of them: the
 *   runtime's check, its message and docs/gpu.md's table follow it), each with its first use in the
 *   kernel or a device function it calls;
 * - the kernel parameters it draws `cuda.random` numbers from (directly or through device functions),
 *   whose layout the runtime checks at launch (the generated C++ reads a state's two words side by side).
 */
import type * as IR from "../ir/nodes";
import { forEachRootExpr, visitExpr } from "../ir/visit";
import { INTRINSIC_RECORDS, INTRINSICS } from "../intrinsics";

export type GpuFeature = "f16Arithmetic" | "f16Atomic" | "warpMatch";

export interface GpuFeatureInfo {
  /** Compute capability × 10 (53 for 5.3): the oldest GPU whose instruction set has it. */
  readonly minComputeCapability: number;
  /** What the kernel language calls it, for messages and docs. */
  readonly name: string;
  /** What the generated code needs from the GPU. */
  readonly needs: string;
}

/** The paths of the intrinsic records that need `feature` whatever their types, for messages and docs. */
function namesNeeding(feature: GpuFeature): string {
  return INTRINSIC_RECORDS.filter((r) => r.feature?.([], "i32") === feature)
    .flatMap((r) => r.paths)
    .join(" / ");
}

/** The minimum compute capability of each feature (NVRTC and ptxas refuse these below it). */
export const GPU_FEATURES: Readonly<Record<GpuFeature, GpuFeatureInfo>> = {
  f16Arithmetic: { minComputeCapability: 53, name: "f16 arithmetic (+ - * of f16, negation, comparisons, Math.abs, cuda.fma)", needs: "the half-precision instructions add/sub/mul/fma/neg/abs/setp .f16" },
  f16Atomic: { minComputeCapability: 70, name: "cuda.atomic.add / cuda.atomic.sub on f16", needs: "atom.add.noftz.f16" },
  warpMatch: { minComputeCapability: 70, name: namesNeeding("warpMatch"), needs: "__match_any_sync / __match_all_sync (match.sync)" },
};

export interface FeatureUse {
  readonly feature: GpuFeature;
  /** The first use found (in the kernel, else in a device function it calls). */
  readonly span: IR.Span;
}

export interface RandomStatesUse {
  /** The kernel parameter's position and name. */
  readonly param: number;
  readonly name: string;
  /** The first draw from it, where, and in which function (the kernel or a device function it calls). */
  readonly draw: IR.RandomDraw;
  readonly span: IR.Span;
  readonly fn: string;
  /** The array's name there (a device function's parameter has its own). */
  readonly array: string;
}

export interface KernelUses {
  readonly features: readonly FeatureUse[];
  readonly randomStates: readonly RandomStatesUse[];
}

/** The feature an expression needs beyond sm_35 (NVRTC 11.8's oldest target), if any. */
function featureOf(e: IR.Expr): GpuFeature | undefined {
  switch (e.k) {
    case "binary":
      // `/` and `%` of halves compute in f32 (cuda/fp16.ts).
      return e.type.dtype === "f16" && (e.op === "+" || e.op === "-" || e.op === "*") ? "f16Arithmetic" : undefined;
    case "unary":
      return e.type.dtype === "f16" && e.op === "-" ? "f16Arithmetic" : undefined;
    case "compare":
      return e.operandType.dtype === "f16" ? "f16Arithmetic" : undefined;
    case "intrinsic": {
      // The record says (warp match; fma and abs of halves — other Math functions of halves compute in f32).
      const feature = INTRINSICS.get(e.name)?.feature;
      if (!feature) return undefined;
      const argDTypes = e.args.map((a) => (a.type.kind === "scalar" ? a.type.dtype : "i32"));
      return feature(argDTypes, e.type.kind === "scalar" ? e.type.dtype : "i32") as GpuFeature | undefined;
    }
    case "atomic":
      return e.type.dtype === "f16" && (e.op === "add" || e.op === "sub") ? "f16Atomic" : undefined;
    default:
      return undefined;
  }
}

interface FunctionUses {
  readonly features: Map<GpuFeature, IR.Span>;
  /** Parameter index → its first draw. */
  readonly states: Map<number, { draw: IR.RandomDraw; span: IR.Span; fn: string; array: string }>;
}

/** What `kernel` (a kernel of `module`) uses, including the device functions it calls. */
export function kernelUses(module: IR.IrModule, kernel: IR.IrFunction): KernelUses {
  const byId = new Map(module.deviceFunctions.map((f) => [f.id, f]));
  const memo = new Map<string, FunctionUses>();
  const usesOf = (fn: IR.IrFunction): FunctionUses => {
    const hit = memo.get(fn.id);
    if (hit) return hit;
    const uses: FunctionUses = { features: new Map(), states: new Map() };
    memo.set(fn.id, uses); // the language has no recursion; this only ends a malformed cycle
    // By id: in an artifact's deserialised IR a parameter's uses are copies of it.
    const paramIndex = (v: IR.Var) => (v.isParam ? fn.params.findIndex((p) => p.id === v.id) : -1);
    forEachRootExpr(fn.body, (root) =>
      visitExpr(root, (e) => {
        const feature = featureOf(e);
        if (feature && !uses.features.has(feature)) uses.features.set(feature, e.span);
        if (e.k === "random") {
          const i = paramIndex(e.states.v);
          if (i >= 0 && !uses.states.has(i)) uses.states.set(i, { draw: e.draw, span: e.span, fn: fn.name, array: e.states.v.name });
        } else if (e.k === "call") {
          const callee = byId.get(e.fn);
          if (!callee) return;
          const inner = usesOf(callee);
          for (const [f, span] of inner.features) if (!uses.features.has(f)) uses.features.set(f, span);
          for (const [j, first] of inner.states) {
            const arg = e.args[j];
            const i = arg?.k === "var" ? paramIndex(arg.v) : -1;
            if (i >= 0 && !uses.states.has(i)) uses.states.set(i, first);
          }
        }
      }),
    );
    return uses;
  };
  const uses = usesOf(kernel);
  return {
    features: [...uses.features].map(([feature, span]) => ({ feature, span })),
    randomStates: [...uses.states].sort(([a], [b]) => a - b).map(([param, first]) => ({ param, name: kernel.params[param]!.name, ...first })),
  };
}
