// Every CUresult of the CUDA driver API (cuda.h, CUDA 13.0): number, name, and the first sentence
// of the header's description. The driver's own cuGetErrorName/cuGetErrorString are preferred at
// run time (they know codes newer than this table); this table is the fallback for a driver that
// does not know a code, and for messages built without a driver. results.test.ts checks it against
// the installed cuda.h, so a new CUDA release that adds codes fails the test until it is updated.

/** [value, name, description] for every CUresult in cuda.h. */
export const CU_RESULTS: readonly (readonly [number, string, string])[] = [
  [0, "CUDA_SUCCESS", "The API call returned with no errors."],
  [1, "CUDA_ERROR_INVALID_VALUE", "This indicates that one or more of the parameters passed to the API call is not within an acceptable range of values."],
  [2, "CUDA_ERROR_OUT_OF_MEMORY", "The API call failed because it was unable to allocate enough memory or other resources to perform the requested operation."],
  [3, "CUDA_ERROR_NOT_INITIALIZED", "This indicates that the CUDA driver has not been initialized with cuInit() or that initialization has failed."],
  [4, "CUDA_ERROR_DEINITIALIZED", "This indicates that the CUDA driver is in the process of shutting down."],
  [5, "CUDA_ERROR_PROFILER_DISABLED", "This indicates profiler is not initialized for this run."],
  [6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED", "Deprecated: This error return is deprecated as of CUDA 5.0."],
  [7, "CUDA_ERROR_PROFILER_ALREADY_STARTED", "Deprecated: This error return is deprecated as of CUDA 5.0."],
  [8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED", "Deprecated: This error return is deprecated as of CUDA 5.0."],
  [34, "CUDA_ERROR_STUB_LIBRARY", "This indicates that the CUDA driver that the application has loaded is a stub library."],
  [36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", "This indicates that the API call requires a newer CUDA driver than the one currently installed."],
  [46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "This indicates that requested CUDA device is unavailable at the current time."],
  [100, "CUDA_ERROR_NO_DEVICE", "This indicates that no CUDA-capable devices were detected by the installed CUDA driver."],
  [101, "CUDA_ERROR_INVALID_DEVICE", "This indicates that the device ordinal supplied by the user does not correspond to a valid CUDA device or that the action requested is invalid for the specified device."],
  [102, "CUDA_ERROR_DEVICE_NOT_LICENSED", "This error indicates that the Grid license is not applied."],
  [200, "CUDA_ERROR_INVALID_IMAGE", "This indicates that the device kernel image is invalid."],
  [201, "CUDA_ERROR_INVALID_CONTEXT", "This most frequently indicates that there is no context bound to the current thread."],
  [202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT", "This indicated that the context being supplied as a parameter to the API call was already the active context."],
  [205, "CUDA_ERROR_MAP_FAILED", "This indicates that a map or register operation has failed."],
  [206, "CUDA_ERROR_UNMAP_FAILED", "This indicates that an unmap or unregister operation has failed."],
  [207, "CUDA_ERROR_ARRAY_IS_MAPPED", "This indicates that the specified array is currently mapped and thus cannot be destroyed."],
  [208, "CUDA_ERROR_ALREADY_MAPPED", "This indicates that the resource is already mapped."],
  [209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "This indicates that there is no kernel image available that is suitable for the device."],
  [210, "CUDA_ERROR_ALREADY_ACQUIRED", "This indicates that a resource has already been acquired."],
  [211, "CUDA_ERROR_NOT_MAPPED", "This indicates that a resource is not mapped."],
  [212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", "This indicates that a mapped resource is not available for access as an array."],
  [213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER", "This indicates that a mapped resource is not available for access as a pointer."],
  [214, "CUDA_ERROR_ECC_UNCORRECTABLE", "This indicates that an uncorrectable ECC error was detected during execution."],
  [215, "CUDA_ERROR_UNSUPPORTED_LIMIT", "This indicates that the CUlimit passed to the API call is not supported by the active device."],
  [216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE", "This indicates that the CUcontext passed to the API call can only be bound to a single CPU thread at a time but is already bound to a CPU thread."],
  [217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "This indicates that peer access is not supported across the given devices."],
  [218, "CUDA_ERROR_INVALID_PTX", "This indicates that a PTX JIT compilation failed."],
  [219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT", "This indicates an error with OpenGL or DirectX context."],
  [220, "CUDA_ERROR_NVLINK_UNCORRECTABLE", "This indicates that an uncorrectable NVLink error was detected during the execution."],
  [221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "This indicates that the PTX JIT compiler library was not found."],
  [222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "This indicates that the provided PTX was compiled with an unsupported toolchain."],
  [223, "CUDA_ERROR_JIT_COMPILATION_DISABLED", "This indicates that the PTX JIT compilation was disabled."],
  [224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY", "This indicates that the CUexecAffinityType passed to the API call is not supported by the active device."],
  [225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC", "This indicates that the code to be compiled by the PTX JIT contains unsupported call to cudaDeviceSynchronize."],
  [226, "CUDA_ERROR_CONTAINED", "This indicates that an exception occurred on the device that is now contained by the GPU's error containment capability."],
  [300, "CUDA_ERROR_INVALID_SOURCE", "This indicates that the device kernel source is invalid."],
  [301, "CUDA_ERROR_FILE_NOT_FOUND", "This indicates that the file specified was not found."],
  [302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", "This indicates that a link to a shared object failed to resolve."],
  [303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "This indicates that initialization of a shared object failed."],
  [304, "CUDA_ERROR_OPERATING_SYSTEM", "This indicates that an OS call failed."],
  [400, "CUDA_ERROR_INVALID_HANDLE", "This indicates that a resource handle passed to the API call was not valid."],
  [401, "CUDA_ERROR_ILLEGAL_STATE", "This indicates that a resource required by the API call is not in a valid state to perform the requested operation."],
  [402, "CUDA_ERROR_LOSSY_QUERY", "This indicates an attempt was made to introspect an object in a way that would discard semantically important information."],
  [500, "CUDA_ERROR_NOT_FOUND", "This indicates that a named symbol was not found."],
  [600, "CUDA_ERROR_NOT_READY", "This indicates that asynchronous operations issued previously have not completed yet."],
  [700, "CUDA_ERROR_ILLEGAL_ADDRESS", "While executing a kernel, the device encountered a load or store instruction on an invalid memory address."],
  [701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "This indicates that a launch did not occur because it did not have appropriate resources."],
  [702, "CUDA_ERROR_LAUNCH_TIMEOUT", "This indicates that the device kernel took too long to execute."],
  [703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING", "This error indicates a kernel launch that uses an incompatible texturing mode."],
  [704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "This error indicates that a call to cuCtxEnablePeerAccess() is trying to re-enable peer access to a context which has already had peer access to it enabled."],
  [705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "This error indicates that cuCtxDisablePeerAccess() is trying to disable peer access which has not been enabled yet via cuCtxEnablePeerAccess()."],
  [708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", "This error indicates that the primary context for the specified device has already been initialized."],
  [709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "This error indicates that the context current to the calling thread has been destroyed using cuCtxDestroy, or is a primary context which has not yet been initialized."],
  [710, "CUDA_ERROR_ASSERT", "A device-side assert triggered during kernel execution."],
  [711, "CUDA_ERROR_TOO_MANY_PEERS", "This error indicates that the hardware resources required to enable peer access have been exhausted for one or more of the devices passed to cuCtxEnablePeerAccess()."],
  [712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "This error indicates that the memory range passed to cuMemHostRegister() has already been registered."],
  [713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "This error indicates that the pointer passed to cuMemHostUnregister() does not correspond to any currently registered memory region."],
  [714, "CUDA_ERROR_HARDWARE_STACK_ERROR", "While executing a kernel, the device encountered a stack error."],
  [715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "While executing a kernel, the device encountered an illegal instruction."],
  [716, "CUDA_ERROR_MISALIGNED_ADDRESS", "While executing a kernel, the device encountered a load or store instruction on a memory address which is not aligned."],
  [717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", "While executing a kernel, the device encountered an instruction which can only operate on memory locations in certain address spaces (global, shared, or local), but was supplied a memory address not belonging to an allowed address space."],
  [718, "CUDA_ERROR_INVALID_PC", "While executing a kernel, the device program counter wrapped its address space."],
  [719, "CUDA_ERROR_LAUNCH_FAILED", "An exception occurred on the device while executing a kernel."],
  [720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "This error indicates that the number of blocks launched per grid for a kernel that was launched via either cuLaunchCooperativeKernel or cuLaunchCooperativeKernelMultiDevice exceeds the maximum number of blocks as allowed by cuOccupancyMaxActiveBlocksPerMultiprocessor or cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags times the number of multiprocessors as specified by the device attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT."],
  [721, "CUDA_ERROR_TENSOR_MEMORY_LEAK", "An exception occurred on the device while exiting a kernel using tensor memory: the tensor memory was not completely deallocated."],
  [800, "CUDA_ERROR_NOT_PERMITTED", "This error indicates that the attempted operation is not permitted."],
  [801, "CUDA_ERROR_NOT_SUPPORTED", "This error indicates that the attempted operation is not supported on the current system or device."],
  [802, "CUDA_ERROR_SYSTEM_NOT_READY", "This error indicates that the system is not yet ready to start any CUDA work."],
  [803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "This error indicates that there is a mismatch between the versions of the display driver and the CUDA driver."],
  [804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "This error indicates that the system was upgraded to run with forward compatibility but the visible hardware detected by CUDA does not support this configuration."],
  [805, "CUDA_ERROR_MPS_CONNECTION_FAILED", "This error indicates that the MPS client failed to connect to the MPS control daemon or the MPS server."],
  [806, "CUDA_ERROR_MPS_RPC_FAILURE", "This error indicates that the remote procedural call between the MPS server and the MPS client failed."],
  [807, "CUDA_ERROR_MPS_SERVER_NOT_READY", "This error indicates that the MPS server is not ready to accept new MPS client requests."],
  [808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED", "This error indicates that the hardware resources required to create MPS client have been exhausted."],
  [809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED", "This error indicates the the hardware resources required to support device connections have been exhausted."],
  [810, "CUDA_ERROR_MPS_CLIENT_TERMINATED", "This error indicates that the MPS client has been terminated by the server."],
  [811, "CUDA_ERROR_CDP_NOT_SUPPORTED", "This error indicates that the module is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not support it."],
  [812, "CUDA_ERROR_CDP_VERSION_MISMATCH", "This error indicates that a module contains an unsupported interaction between different versions of CUDA Dynamic Parallelism."],
  [900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "This error indicates that the operation is not permitted when the stream is capturing."],
  [901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "This error indicates that the current capture sequence on the stream has been invalidated due to a previous error."],
  [902, "CUDA_ERROR_STREAM_CAPTURE_MERGE", "This error indicates that the operation would have resulted in a merge of two independent capture sequences."],
  [903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "This error indicates that the capture was not initiated in this stream."],
  [904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "This error indicates that the capture sequence contains a fork that was not joined to the primary stream."],
  [905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "This error indicates that a dependency would have been created which crosses the capture sequence boundary."],
  [906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "This error indicates a disallowed implicit dependency on a current capture sequence from cudaStreamLegacy."],
  [907, "CUDA_ERROR_CAPTURED_EVENT", "This error indicates that the operation is not permitted on an event which was last recorded in a capturing stream."],
  [908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", "A stream capture sequence not initiated with the CU_STREAM_CAPTURE_MODE_RELAXED argument to cuStreamBeginCapture was passed to cuStreamEndCapture in a different thread."],
  [909, "CUDA_ERROR_TIMEOUT", "This error indicates that the timeout specified for the wait operation has lapsed."],
  [910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "This error indicates that the graph update was not performed because it included changes which violated constraints specific to instantiated graph update."],
  [911, "CUDA_ERROR_EXTERNAL_DEVICE", "This indicates that an async error has occurred in a device outside of CUDA."],
  [912, "CUDA_ERROR_INVALID_CLUSTER_SIZE", "Indicates a kernel launch error due to cluster misconfiguration."],
  [913, "CUDA_ERROR_FUNCTION_NOT_LOADED", "Indiciates a function handle is not loaded when calling an API that requires a loaded function."],
  [914, "CUDA_ERROR_INVALID_RESOURCE_TYPE", "This error indicates one or more resources passed in are not valid resource types for the operation."],
  [915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION", "This error indicates one or more resources are insufficient or non-applicable for the operation."],
  [916, "CUDA_ERROR_KEY_ROTATION", "This error indicates that an error happened during the key rotation sequence."],
  [999, "CUDA_ERROR_UNKNOWN", "This indicates that an unknown internal error has occurred."],
]

const byNumber = new Map<number, { name: string; description: string }>(
  CU_RESULTS.map(([value, name, description]) => [value, { name, description }]),
);

/** CUDA_SUCCESS. */
export const CUDA_SUCCESS = 0;
/** The CUresult of a query whose work has not completed yet. */
export const CUDA_ERROR_NOT_READY = 600;

/** The CUresult name of `result` per this table, e.g. 700 → "CUDA_ERROR_ILLEGAL_ADDRESS"; undefined if unknown. */
export function cuResultName(result: number): string | undefined {
  return byNumber.get(result)?.name;
}

/** The header's one-sentence description of `result`; undefined if unknown. */
export function cuResultDescription(result: number): string | undefined {
  return byNumber.get(result)?.description;
}

/** The number of a CUresult name, e.g. "CUDA_ERROR_INVALID_VALUE" → 1; undefined if unknown. */
export function cuResultNumber(name: string): number | undefined {
  return CU_RESULTS.find(([, n]) => n === name)?.[0];
}

/**
 * "Sticky" errors: cuda.h says each of these leaves the process (or context) in an inconsistent
 * state in which every further CUDA call fails with the same error — the context is unusable and,
 * for most, the process must be restarted to use CUDA again. Kept equal to the header's wording by
 * results.test.ts ("inconsistent state", "must be terminated and relaunched", "context cannot be used").
 */
export const STICKY_CU_RESULTS: ReadonlySet<number> = new Set([
  226, // CUDA_ERROR_CONTAINED
  700, // CUDA_ERROR_ILLEGAL_ADDRESS
  702, // CUDA_ERROR_LAUNCH_TIMEOUT
  710, // CUDA_ERROR_ASSERT (the context must be destroyed)
  714, // CUDA_ERROR_HARDWARE_STACK_ERROR
  715, // CUDA_ERROR_ILLEGAL_INSTRUCTION
  716, // CUDA_ERROR_MISALIGNED_ADDRESS
  717, // CUDA_ERROR_INVALID_ADDRESS_SPACE
  718, // CUDA_ERROR_INVALID_PC
  719, // CUDA_ERROR_LAUNCH_FAILED
  721, // CUDA_ERROR_TENSOR_MEMORY_LEAK
  810, // CUDA_ERROR_MPS_CLIENT_TERMINATED
  911, // CUDA_ERROR_EXTERNAL_DEVICE
]);

/** Whether `result` leaves the context unusable (see STICKY_CU_RESULTS). */
export function isStickyCuResult(result: number): boolean {
  return STICKY_CU_RESULTS.has(result);
}
