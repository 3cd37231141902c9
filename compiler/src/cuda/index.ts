export { CODEGEN_VERSION, CudaGenError, generateCuda } from "./generate";
export type { CudaKernel, CudaParam, GenerateCudaOptions, GeneratedCuda, LineMapEntry } from "./generate";
export { cElementType, cType } from "./literals";
export { PRINTF_BYTES_SYMBOL, printfRecordLowerBound } from "./printf-bytes";
export { XOROSHIRO128P_CPP } from "./random";
export { GPU_FEATURES, kernelUses } from "./kernel-uses";
export type { FeatureUse, GpuFeature, GpuFeatureInfo, KernelUses, RandomStatesUse } from "./kernel-uses";
export { MAX_RAISE_VALUES, RAISE_RECORD_SYMBOL, RAISE_RECORD_WORDS, raiseSites } from "./raise";
export type { RaiseSite } from "./raise";
