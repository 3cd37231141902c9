export { compileModule, compileModuleSync, nvrtcOptionsFor, parseComputeCapability } from "./compile";
export type { CompileOptions, CompileOutput, CompiledModule, KernelResourceUsage } from "./compile";
export { CompileCache, cacheKey, defaultCacheDir } from "./cache";
export type { CacheEntry, CacheRead } from "./cache";
export { fusedMultiplyAddsByEntry, kernelsAllowedToFuse, unexpectedContractions } from "./contraction";
