// First: TypeScript loaded through V8's code cache before anything below loads ts-morph.
import "./frontend/load-typescript";
export * from "./ir/types";
export * from "./ir/nodes";
export * from "./diagnostics/codes";
export * from "./diagnostics/diagnostic";
export { CudaProject, type TextChange } from "./frontend/project";
/** The TypeScript API the front end parses with (ts-morph's bundled copy), for tools built on the compiler. */
export { ts } from "ts-morph";
export { FrontEnd } from "./frontend/program";
export { HOST_CUDA_NAMES, KERNEL_ROOTS } from "./frontend/cuda-names";
export { KernelChecker, STATIC_SHARED_LIMIT, type FileCheck } from "./checker/checker";
export type { LaunchSite } from "./checker/launch-sites";
export * from "./occupancy";
export * from "./cuda";
export * from "./compile";
export * from "./js";
