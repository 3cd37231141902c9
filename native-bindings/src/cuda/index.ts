// The CUDA driver API for CudaScript ("@cudascript/native-bindings/cuda"): discovery and raw koffi
// bindings (driver.ts), the high-level API (device.ts), CUresult names (results.ts), enum values
// (constants.ts) and a PTX signature reader (ptx.ts). Helpers for the libcuda TEST DOUBLE are in
// the repository's test/driver-double/test-double.ts (tests only: not in this package).
export {
  CUDA_DRIVER_INSTALL_HINT,
  CUDA_DRIVER_UNAVAILABLE_CODE,
  CudaDriver,
  CudaDriverUnavailable,
  bindDriver,
  cudaDriverCandidates,
  forgetCudaDriverLoadFailures,
  loadCudaDriver,
} from "./driver";
export type {
  CuHandle,
  CudaDriverApi,
  CudaDriverAttempt,
  CudaDriverCandidate,
  CudaDriverInfo,
  CudaDriverLoad,
  DevicePointer,
  HostMemory,
  LoadCudaDriverOptions,
  Out,
} from "./driver";
export {
  CudaContext,
  CudaDriverError,
  CudaEvent,
  CudaFunction,
  CudaModule,
  CudaStream,
  CudaUsageError,
  DeviceAllocation,
  ModuleGlobal,
  DeviceRange,
  ParamScratch,
  PinnedBuffer,
  deviceInfo,
  driverVersion,
  forgetCudaContexts,
  initCuda,
  listDevices,
  probeCuda,
} from "./device";
export type {
  CudaDeviceInfo,
  CudaDriverErrorDetails,
  CudaFunctionAttributes,
  CudaProbe,
  CudaProbeCode,
  CudaUsageCode,
  DeviceMemory,
  Dim3,
  LoadModuleOptions,
} from "./device";
export { CU_RESULTS, CUDA_SUCCESS, STICKY_CU_RESULTS, cuResultDescription, cuResultName, cuResultNumber, isStickyCuResult } from "./results";
export { CU_DEVICE_ATTRIBUTE, CU_EVENT, CU_FUNC_ATTRIBUTE, CU_JIT, CU_LIMIT, CU_MEMHOSTALLOC, CU_STREAM } from "./constants";
export { parsePtx } from "./ptx";
export { KernelParamBlock, PreparedLaunch } from "./prepared-launch";
export type { PtxEntry, PtxInfo, PtxParam } from "./ptx";
