// Enum values of the CUDA driver API that the bindings use (cuda.h, CUDA 13.0). They are stable
// across CUDA releases; constants.test.ts checks each one against the installed cuda.h.

/** CUdevice_attribute values used by listDevices(). */
export const CU_DEVICE_ATTRIBUTE = {
  MAX_THREADS_PER_BLOCK: 1,
  MAX_BLOCK_DIM_X: 2,
  MAX_BLOCK_DIM_Y: 3,
  MAX_BLOCK_DIM_Z: 4,
  MAX_GRID_DIM_X: 5,
  MAX_GRID_DIM_Y: 6,
  MAX_GRID_DIM_Z: 7,
  MAX_SHARED_MEMORY_PER_BLOCK: 8,
  TOTAL_CONSTANT_MEMORY: 9,
  WARP_SIZE: 10,
  MAX_REGISTERS_PER_BLOCK: 12,
  CLOCK_RATE: 13,
  MULTIPROCESSOR_COUNT: 16,
  KERNEL_EXEC_TIMEOUT: 17,
  INTEGRATED: 18,
  CAN_MAP_HOST_MEMORY: 19,
  COMPUTE_MODE: 20,
  CONCURRENT_KERNELS: 31,
  ECC_ENABLED: 32,
  PCI_BUS_ID: 33,
  PCI_DEVICE_ID: 34,
  MEMORY_CLOCK_RATE: 36,
  GLOBAL_MEMORY_BUS_WIDTH: 37,
  L2_CACHE_SIZE: 38,
  MAX_THREADS_PER_MULTIPROCESSOR: 39,
  ASYNC_ENGINE_COUNT: 40,
  UNIFIED_ADDRESSING: 41,
  PCI_DOMAIN_ID: 50,
  COMPUTE_CAPABILITY_MAJOR: 75,
  COMPUTE_CAPABILITY_MINOR: 76,
  MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: 81,
  MAX_REGISTERS_PER_MULTIPROCESSOR: 82,
  MANAGED_MEMORY: 83,
  COOPERATIVE_LAUNCH: 95,
  MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 97,
  MAX_BLOCKS_PER_MULTIPROCESSOR: 106,
  RESERVED_SHARED_MEMORY_PER_BLOCK: 111,
} as const;

/** CUfunction_attribute values. */
export const CU_FUNC_ATTRIBUTE = {
  MAX_THREADS_PER_BLOCK: 0,
  SHARED_SIZE_BYTES: 1,
  CONST_SIZE_BYTES: 2,
  LOCAL_SIZE_BYTES: 3,
  NUM_REGS: 4,
  PTX_VERSION: 5,
  BINARY_VERSION: 6,
  CACHE_MODE_CA: 7,
  MAX_DYNAMIC_SHARED_SIZE_BYTES: 8,
  PREFERRED_SHARED_MEMORY_CARVEOUT: 9,
} as const;

/** CUjit_option values passed to cuModuleLoadDataEx. */
export const CU_JIT = {
  MAX_REGISTERS: 0,
  THREADS_PER_BLOCK: 1,
  /** OUT: float milliseconds spent in the JIT (written into the option's value slot). */
  WALL_TIME: 2,
  INFO_LOG_BUFFER: 3,
  /** IN: buffer size; OUT: bytes of log written (including the NUL). */
  INFO_LOG_BUFFER_SIZE_BYTES: 4,
  ERROR_LOG_BUFFER: 5,
  ERROR_LOG_BUFFER_SIZE_BYTES: 6,
  OPTIMIZATION_LEVEL: 7,
  TARGET_FROM_CUCONTEXT: 8,
  TARGET: 9,
  FALLBACK_STRATEGY: 10,
  GENERATE_DEBUG_INFO: 11,
  LOG_VERBOSE: 12,
  GENERATE_LINE_INFO: 13,
} as const;

/** CUevent_flags. */
export const CU_EVENT = { DEFAULT: 0x0, BLOCKING_SYNC: 0x1, DISABLE_TIMING: 0x2, INTERPROCESS: 0x4 } as const;

/** CUstream_flags. */
export const CU_STREAM = { DEFAULT: 0x0, NON_BLOCKING: 0x1 } as const;

/** cuMemHostAlloc flags (#defines in cuda.h). */
export const CU_MEMHOSTALLOC = { PORTABLE: 0x01, DEVICEMAP: 0x02, WRITECOMBINED: 0x04 } as const;

/** cuMemHostRegister flags (#defines in cuda.h). */
export const CU_MEMHOSTREGISTER = { PORTABLE: 0x01, DEVICEMAP: 0x02 } as const;

/** CUmemAttach_flags for cuMemAllocManaged. */
export const CU_MEM_ATTACH = { GLOBAL: 0x1, HOST: 0x2 } as const;

/** CUlimit values for cuCtxSetLimit / cuCtxGetLimit. */
export const CU_LIMIT = { STACK_SIZE: 0x00, PRINTF_FIFO_SIZE: 0x01, MALLOC_HEAP_SIZE: 0x02 } as const;
