// Public API of @cudascript/native-bindings: NVRTC discovery, loading and compilation, and the
// ptxas resource-report parser. (The tests' NVRTC/ptxas skip helpers are in the repository's
// test/support/, not in this package.)
export { discoverNvrtc, findBuiltinsNextTo, versionFromFileName } from "./nvrtc/discover";
export type { DiscoveryOptions, NvrtcCandidate, NvrtcDiscoveryStep, NvrtcMiss } from "./nvrtc/discover";
export { Nvrtc, forgetNvrtcLoadFailures, loadNvrtc } from "./nvrtc/nvrtc";
export type { CompileRequest, CompileResult, LoadNvrtcOptions, NvrtcInfo, NvrtcLoad, NvrtcVersion } from "./nvrtc/nvrtc";
export { NVRTC_CRASHED } from "./nvrtc/isolated";
export type { NvrtcCrash } from "./nvrtc/isolated";
export { NVRTC_INSTALL_HINT, NVRTC_UNAVAILABLE_CODE, NvrtcUnavailable } from "./nvrtc/unavailable";
export type { NvrtcAttempt } from "./nvrtc/unavailable";
export { parseKernelResources, parsePtxasReport } from "./nvrtc/resources";
export type { KernelResources, PtxasReport } from "./nvrtc/resources";
export { assemblePtx, findPtxas } from "./ptxas";
export { decodePtxString, ptxFiles, ptxString, rewritePtxFiles } from "./ptx-files";
export type { PtxasRun } from "./ptxas";
// CUDA driver API (koffi bindings to libcuda, high-level contexts/memory/modules/launches); also
// importable as "@cudascript/native-bindings/cuda". The libcuda test double and its helpers are
// in the repository's test/driver-double/, not in this package.
export * from "./cuda/index";
/** koffi itself, for libraries found at run time beside libcuda and NVRTC (the runtime probes NCCL with it). */
export { koffi } from "./koffi";
