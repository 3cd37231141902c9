export { cuda, CudaScriptError } from "./cuda";
export * from "./dtypes";
export type * from "./kernel-api";
export { report, type ReportOptions } from "./report";
