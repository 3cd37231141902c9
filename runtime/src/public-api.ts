/** Everything `cudascript` exports by name (index.ts adds the default export: this namespace). */
export { cuda, CudaScriptError, DeviceNDArray, NDArray, Stream, Event, type HostApi, type HostRandomApi } from "./cuda";
export type { Xoroshiro128pOptions, Xoroshiro128pStateArray } from "./random/host";
// The interop functions are `cuda.*` members (as Numba's) and named exports too (docs/interop.md).
export { isCudaArray, asCudaArray, fromCudaArrayInterface, type CudaArrayInterface, type ArrayInterfaceOptions } from "./host/array-interface";
export { openIpcArray, type IpcHandle, type OpenIpcArrayOptions } from "./host/ipc";
export { fromDlpack } from "./host/dlpack";
export * from "./dtypes";
export { RecordArray, RecordDtype, type RecordFieldDType, type RecordFields, type RecordFieldValue, type RecordValue } from "./records";
export { Float16Array, f16round, isFloat16Array } from "./float16";
export type * from "./kernel-api";
export { report, type ReportOptions } from "./report";
export type { Ufunc, UfuncInput, UfuncOptions, Reducer, ReduceOptions } from "./ufunc";
export type { Gufunc, GufuncOptions } from "./gufunc";
export { ErrorCodes, type ErrorCode, type FaultDetails } from "./errors";
export { configureGpu, configureSimulator, chooseBackend, probeCudaDriver, type BackendRequest, type BackendChoice, type GpuOptions } from "./host/device";
export type { SimulatorOptions } from "./simulator/backend";
export type { Backend, DeviceBuffer, DeviceInfo, DeviceLimits, KernelArg, LaunchConfig, StreamHandle, EventHandle, ModuleHandle } from "./backend";
export { dist, type Dist, type ReduceOp } from "./distributed/api";
export type { ProfileReport, LaunchProfile, ProfileLine, ProfileCounters } from "./profiler/report";
export type { DerivedFigures, RooflineEstimate } from "./profiler/derived";
export type { ProfileOptions } from "./profiler/session";
