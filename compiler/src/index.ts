export * from "./ir/types";
export * from "./ir/nodes";
export * from "./diagnostics/codes";
export * from "./diagnostics/diagnostic";
export { CudaProject } from "./frontend/project";
export { FrontEnd } from "./frontend/program";
export { KernelChecker, STATIC_SHARED_LIMIT, type FileCheck } from "./checker/checker";
export type { LaunchSite } from "./checker/launch-sites";
export * from "./occupancy";
