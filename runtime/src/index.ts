export { cuda, CudaScriptError } from "./cuda";
export * from "./dtypes";
export type * from "./kernel-api";
