// First: TypeScript loaded through V8's code cache before anything below requires it.
import "./frontend/load-typescript";
export * from "./ir/types";
export * from "./ir/nodes";
export * from "./diagnostics/codes";
export * from "./diagnostics/diagnostic";
export { CudaProject, type TextChange } from "./frontend/project";
/** @internal The worker that finds a too-deep construct loads it from the bundle where the compiler is bundled (frontend/project.ts). */
export { firstTooDeepOffset, isStackOverflow, MAX_NESTING_DEPTH } from "./frontend/nesting";
/** The TypeScript API the front end parses with (the compiler's own `typescript` dependency), for tools built on the compiler. */
import ts from "typescript";
export { ts };
export { jsDocAbove, runTagBlockThreads, runTagText } from "./frontend/kernel-doc";
export { FrontEnd } from "./frontend/program";
export { readRecordType } from "./frontend/type-annotations";
export { HOST_CUDA_NAMES, KERNEL_ROOTS } from "./frontend/cuda-names";
export { KernelChecker, STATIC_SHARED_LIMIT, type FileCheck } from "./checker/checker";
export type { LaunchSite } from "./checker/launch-sites";
export * from "./occupancy";
export * from "./cuda";
export * from "./compile";
export * from "./js";
export { emitStepModule, type StepFunction, type StepModule, type StepStatement, type StepVar } from "./step/emit-step";
export { DebugExpressionCompiler, type DebugExpressionDiagnostic, type DebugExpressionResult } from "./step/debug-expression";
export { emitProbedSimulatorModule, PROBE_FORMAT, writtenArrayParams, type ProbeLine } from "./step/probe";
