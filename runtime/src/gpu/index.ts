/** The GPU backend (CUDA driver API): see backend.ts and docs/gpu.md. */
export { GpuBackend, GpuBuffer, type GpuBackendOptions, type GpuMemoryStats } from "./backend";
export { ArgPlan, parseCParam, elementCType, scalarCType, type AbiSlot, type AbiParam } from "./abi";
export { chooseTarget, compileForDevice, kernelInfos, type CompiledForDevice, type GpuKernelInfo, type PtxModule } from "./compile";
export { GpuError, GpuErrorCodes, type GpuErrorCode, type CudaFailure } from "./errors";
