/**
 * Builds the KernelArtifact (its shapes are in artifact-types.ts): the compiled form of one source
 * file's kernels, as the build step embeds it in a bundle and as the runtime loads it.
 */
import { createHash } from "node:crypto";
import type { IrModule } from "../ir/nodes";
import type { ArtifactFormat, KernelArtifact, KernelEntry } from "./artifact-types";
import { kernelSignature } from "../ir/nodes";
import { forEachStmt } from "../ir/visit";
import { emitSimulatorModule, SIM_ABI } from "./emit";

export type { ArtifactFormat, KernelArtifact, KernelEntry } from "./artifact-types";

export const ARTIFACT_FORMAT: ArtifactFormat = "cudascript-artifact@1";

export interface ArtifactOptions {
  /** Static shared bytes per kernel id (FileCheck.staticSharedBytes). */
  readonly staticSharedBytes?: ReadonlyMap<string, number>;
  /** Embed the IR (default true). */
  readonly includeIr?: boolean;
}

export function makeArtifact(module: IrModule, opts: ArtifactOptions = {}): KernelArtifact {
  const fast = emitSimulatorModule(module);
  const san = emitSimulatorModule(module, { sanitize: true });
  const kernels: Record<string, KernelEntry> = {};
  module.kernels.forEach((k, i) => {
    kernels[k.name] = {
      name: k.name,
      id: k.id,
      file: k.span.file,
      line: k.span.line,
      signature: kernelSignature(k),
      staticSharedBytes: opts.staticSharedBytes?.get(k.id) ?? 0,
      usesDynamicShared: usesDynamicShared(module, k.id),
      ...(k.options.launchBounds ? { launchBounds: k.options.launchBounds } : {}),
      simulator: fast.kernels[i]!,
    };
  });
  const hash = createHash("sha1").update(fast.source).update(san.source).digest("hex").slice(0, 16);
  return {
    format: ARTIFACT_FORMAT,
    hash,
    file: module.file,
    kernels,
    simulator: { abi: SIM_ABI, js: fast.source, jsSanitize: san.source },
    ir: opts.includeIr === false ? undefined : serializeIr(module),
  };
}

function usesDynamicShared(module: IrModule, kernelId: string): boolean {
  const fns = new Map([...module.kernels, ...module.deviceFunctions].map((f) => [f.id, f]));
  const seen = new Set<string>();
  const stack = [kernelId];
  let found = false;
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const f = fns.get(id);
    if (!f) continue;
    forEachStmt(f.body, (s) => {
      if (s.k === "arrayDecl" && s.arrayType.space === "shared" && s.arrayType.shape?.length === 1 && s.arrayType.shape[0] === 0) found = true;
    });
    stack.push(...f.callees);
  }
  return found;
}

/**
 * The IrModule as plain JSON (Var objects are shared by reference in memory; JSON repeats them). JSON
 * has no bigint: an i64/u64 constant becomes its decimal string, which the code generators read back
 * with BigInt(…) (cuda/literals.ts, js/int64.ts). Nor NaN or infinity, which it would turn into null
 * (0), nor -0 (0): in a constant array's values they become "NaN" / "Infinity" / "-Infinity" / "-0", which the code
 * generators read back with Number(…).
 */
export function serializeIr(module: IrModule): IrModule {
  const replacer = (k: string, v: unknown): unknown => {
    if (typeof v === "bigint") return v.toString();
    if (k === "values" && Array.isArray(v)) return v.map((x: unknown) => (typeof x === "number" && (!Number.isFinite(x) || Object.is(x, -0)) ? (Object.is(x, -0) ? "-0" : String(x)) : x));
    return v;
  };
  return JSON.parse(JSON.stringify(module, replacer)) as IrModule;
}
