/*
 * TEST DOUBLE of the NVIDIA CUDA driver library (libcuda.so.1), for CudaScript's tests.
 *
 * THIS IS NOT THE NVIDIA DRIVER. It runs nothing on a GPU and needs none. It exists so that the
 * koffi bindings (native-bindings/src/cuda) and the GPU backend can be tested on machines without
 * a GPU: tests build it with gcc (test/driver-double/build.sh) and point CUDASCRIPT_LIBCUDA at the
 * resulting libcuda.so.1.
 *
 * What it does (see README.md next to this file for the full contract):
 *  - implements the driver-API functions CudaScript binds, with the real ABI (versioned symbols);
 *  - keeps "device memory" in host RAM behind fake device addresses (0x00000a0000000000 + offset,
 *    reused after a free like the real driver's), so out-of-range pointers return
 *    CUDA_ERROR_INVALID_VALUE, and a stale pointer may land in a newer allocation;
 *  - parses the PTX it is given for .entry names, parameter sizes and static shared memory, and
 *    copies exactly that many bytes from each kernelParams[i] when recording a launch;
 *  - defers asynchronous work (async copies, launches, event records) until a synchronization
 *    point, like a real GPU, so a missing synchronize shows up as stale data or CUDA_ERROR_NOT_READY;
 *  - records every call in an ordered log (JSON lines) readable with cudaDouble_copyLog() or
 *    written to the file named by CUDASCRIPT_DOUBLE_LOG;
 *  - returns scripted errors (cudaDouble_failNext, cudaDouble_failKernel, CUDASCRIPT_DOUBLE_FAIL)
 *    and scripted devices (count, attributes, names; cuInit failure).
 * Kernel launches execute nothing: they are recorded and advance a virtual clock (for event timing).
 *
 * Build: gcc -shared -fPIC -O1 -o <dir>/libcuda.so.1 libcuda.c -lpthread
 * With -DCUDASCRIPT_DOUBLE_WITH_CUDA_H -I<cuda>/include every function definition is checked
 * against the prototypes in the real cuda.h (build.sh does this when it finds cuda.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef CUDASCRIPT_DOUBLE_WITH_CUDA_H
#include <cuda.h>
#undef cuEventElapsedTime /* the header maps it to _v2; the legacy symbol is defined below too */
#else
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef int CUdevice_attribute;
typedef int CUlimit;
typedef int CUfunction_attribute;
typedef int CUjit_option;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUipcMemHandle_st {
    char reserved[64];
} CUipcMemHandle;
#define CUDAAPI
#endif

#define EXPORT __attribute__((visibility("default")))

/* CUresult values used here (checked against cuda.h when it is included). */
enum {
    R_SUCCESS = 0,
    R_INVALID_VALUE = 1,
    R_OUT_OF_MEMORY = 2,
    R_NOT_INITIALIZED = 3,
    R_NO_DEVICE = 100,
    R_INVALID_DEVICE = 101,
    R_INVALID_IMAGE = 200,
    R_INVALID_CONTEXT = 201,
    R_INVALID_PTX = 218,
    R_UNSUPPORTED_PTX_VERSION = 222,
    R_INVALID_HANDLE = 400,
    R_NOT_FOUND = 500,
    R_NOT_READY = 600,
    R_NOT_SUPPORTED = 801,
    R_UNSUPPORTED_LIMIT = 215,
};
#ifdef CUDASCRIPT_DOUBLE_WITH_CUDA_H
_Static_assert((int)R_INVALID_VALUE == (int)CUDA_ERROR_INVALID_VALUE, "CUresult");
_Static_assert((int)R_OUT_OF_MEMORY == (int)CUDA_ERROR_OUT_OF_MEMORY, "CUresult");
_Static_assert((int)R_NOT_INITIALIZED == (int)CUDA_ERROR_NOT_INITIALIZED, "CUresult");
_Static_assert((int)R_NO_DEVICE == (int)CUDA_ERROR_NO_DEVICE, "CUresult");
_Static_assert((int)R_INVALID_DEVICE == (int)CUDA_ERROR_INVALID_DEVICE, "CUresult");
_Static_assert((int)R_INVALID_IMAGE == (int)CUDA_ERROR_INVALID_IMAGE, "CUresult");
_Static_assert((int)R_INVALID_CONTEXT == (int)CUDA_ERROR_INVALID_CONTEXT, "CUresult");
_Static_assert((int)R_INVALID_PTX == (int)CUDA_ERROR_INVALID_PTX, "CUresult");
_Static_assert((int)R_UNSUPPORTED_PTX_VERSION == (int)CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUresult");
_Static_assert((int)R_INVALID_HANDLE == (int)CUDA_ERROR_INVALID_HANDLE, "CUresult");
_Static_assert((int)R_NOT_FOUND == (int)CUDA_ERROR_NOT_FOUND, "CUresult");
_Static_assert((int)R_NOT_READY == (int)CUDA_ERROR_NOT_READY, "CUresult");
_Static_assert((int)R_NOT_SUPPORTED == (int)CUDA_ERROR_NOT_SUPPORTED, "CUresult");
_Static_assert((int)R_UNSUPPORTED_LIMIT == (int)CUDA_ERROR_UNSUPPORTED_LIMIT, "CUresult");
#endif

/* Attribute and option numbers (cuda.h enums). */
enum {
    A_MAX_THREADS_PER_BLOCK = 1, A_MAX_BLOCK_DIM_X = 2, A_MAX_BLOCK_DIM_Y = 3, A_MAX_BLOCK_DIM_Z = 4,
    A_MAX_GRID_DIM_X = 5, A_MAX_GRID_DIM_Y = 6, A_MAX_GRID_DIM_Z = 7, A_MAX_SHARED_PER_BLOCK = 8,
    A_TOTAL_CONSTANT_MEMORY = 9, A_WARP_SIZE = 10, A_MAX_PITCH = 11, A_MAX_REGISTERS_PER_BLOCK = 12,
    A_CLOCK_RATE = 13, A_TEXTURE_ALIGNMENT = 14, A_GPU_OVERLAP = 15, A_MULTIPROCESSOR_COUNT = 16,
    A_INTEGRATED = 18, A_CAN_MAP_HOST_MEMORY = 19, A_CONCURRENT_KERNELS = 31, A_ECC_ENABLED = 32,
    A_PCI_BUS_ID = 33, A_MEMORY_CLOCK_RATE = 36, A_GLOBAL_MEMORY_BUS_WIDTH = 37, A_L2_CACHE_SIZE = 38,
    A_MAX_THREADS_PER_MULTIPROCESSOR = 39, A_ASYNC_ENGINE_COUNT = 40, A_UNIFIED_ADDRESSING = 41,
    A_CC_MAJOR = 75, A_CC_MINOR = 76, A_MAX_SHARED_PER_MULTIPROCESSOR = 81,
    A_MAX_REGISTERS_PER_MULTIPROCESSOR = 82, A_MANAGED_MEMORY = 83, A_COOPERATIVE_LAUNCH = 95,
    A_MAX_SHARED_PER_BLOCK_OPTIN = 97, A_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
    A_RESERVED_SHARED_PER_BLOCK = 111, A_COUNT = 160,
};
enum {
    F_MAX_THREADS_PER_BLOCK = 0, F_SHARED_SIZE_BYTES = 1, F_CONST_SIZE_BYTES = 2, F_LOCAL_SIZE_BYTES = 3,
    F_NUM_REGS = 4, F_PTX_VERSION = 5, F_BINARY_VERSION = 6, F_CACHE_MODE_CA = 7,
    F_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8, F_PREFERRED_SHARED_MEMORY_CARVEOUT = 9, F_COUNT = 16,
};
enum {
    J_MAX_REGISTERS = 0, J_WALL_TIME = 2, J_INFO_LOG_BUFFER = 3, J_INFO_LOG_BUFFER_SIZE_BYTES = 4, J_ERROR_LOG_BUFFER = 5,
    J_ERROR_LOG_BUFFER_SIZE_BYTES = 6, J_LOG_VERBOSE = 12, J_MAX_OPTION = 40,
};
enum { EVENT_DISABLE_TIMING = 0x2 };
#ifdef CUDASCRIPT_DOUBLE_WITH_CUDA_H
_Static_assert((int)A_CC_MAJOR == (int)CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "attribute");
_Static_assert((int)A_MAX_SHARED_PER_BLOCK_OPTIN == (int)CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "attribute");
_Static_assert((int)A_RESERVED_SHARED_PER_BLOCK == (int)CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, "attribute");
_Static_assert((int)F_MAX_DYNAMIC_SHARED_SIZE_BYTES == (int)CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "attribute");
_Static_assert((int)J_ERROR_LOG_BUFFER_SIZE_BYTES == (int)CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, "jit option");
_Static_assert((int)J_LOG_VERBOSE == (int)CU_JIT_LOG_VERBOSE, "jit option");
_Static_assert((int)J_MAX_REGISTERS == (int)CU_JIT_MAX_REGISTERS, "jit option");
_Static_assert((int)EVENT_DISABLE_TIMING == (int)CU_EVENT_DISABLE_TIMING, "event flag");
#endif

#define MAX_DEVICES 8
#define MAX_PARAMS 256
#define DEVICE_BASE 0x00000a0000000000ULL
#define DEVICE_ALIGN 256ULL
#define MAGIC_CTX 0x43545831u
#define MAGIC_MOD 0x4d4f4431u
#define MAGIC_FUNC 0x46554e31u
#define MAGIC_STREAM 0x53545231u
#define MAGIC_EVENT 0x45564e31u

/* ------------------------------------------------------------------------------------------ */
/* Growable text buffer                                                                        */

typedef struct {
    char *p;
    size_t len, cap;
    int off; /* a call-log entry while the log is off (cudaDouble_setLogging): adds nothing */
} Text;

static void text_reserve(Text *t, size_t more) {
    if (t->len + more + 1 <= t->cap) return;
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + more + 1) cap *= 2;
    char *p = realloc(t->p, cap);
    if (!p) abort();
    t->p = p;
    t->cap = cap;
}
static void text_add(Text *t, const char *s, size_t n) {
    if (t->off) return;
    text_reserve(t, n);
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = 0;
}
static void text_printf(Text *t, const char *fmt, ...) {
    if (t->off) return;
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        text_add(t, small, (size_t)n);
        return;
    }
    text_reserve(t, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}
static void text_json_string(Text *t, const char *s, size_t n) {
    text_add(t, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"') text_add(t, "\\\"", 2);
        else if (c == '\\') text_add(t, "\\\\", 2);
        else if (c == '\n') text_add(t, "\\n", 2);
        else if (c == '\t') text_add(t, "\\t", 2);
        else if (c == '\r') text_add(t, "\\r", 2);
        else if (c < 0x20 || c == 0x7f) text_printf(t, "\\u%04x", c);
        else text_add(t, (const char *)&c, 1);
    }
    text_add(t, "\"", 1);
}
static void text_free(Text *t) {
    free(t->p);
    t->p = NULL;
    t->len = t->cap = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* State                                                                                       */

/* CUlimit values the double implements (cuda.h): stack, printf FIFO, malloc heap. */
#define LIMIT_STACK_SIZE 0
#define LIMIT_PRINTF_FIFO_SIZE 1
#define LIMIT_MALLOC_HEAP_SIZE 2
#define DEFAULT_PRINTF_FIFO (1u << 20) /* 1 MiB, as on a GPU */

struct CUctx_st {
    uint32_t magic;
    int device;
    int refcount;
    size_t limits[3];   /* by LIMIT_*; reset when the primary context is destroyed */
    int printfLaunched; /* a kernel that calls vprintf was launched: the FIFO size is fixed */
    /* Device printf output not yet shown: written to stdout at the next synchronization. What
       does not fit in the FIFO is dropped (a GPU gives no signal either). */
    char *fifo;
    size_t fifoLen;
    unsigned long long printfDropped;
};

typedef struct {
    char name[256];
    int attrs[A_COUNT];
    unsigned long long totalMem;
    struct CUctx_st ctx;
} Device;

typedef struct {
    uint64_t base;
    size_t size;
    unsigned char *host;
    CUcontext ctx;
    struct CUmod_st *module; /* a module-scope .global of this module (freed with it), or NULL for cuMemAlloc */
    /* CUDA IPC: `host` is a MAP_SHARED mapping of a file in /dev/shm (`shmPath`) of `mappedBytes`
       bytes, so that another process opening the handle sees the same bytes. `exported`: this process
       made the file (cuIpcGetMemHandle) and unlinks it at cuMemFree; `opened`: cuIpcOpenMemHandle
       mapped it here, and only cuIpcCloseMemHandle releases it. */
    size_t mappedBytes;
    int exported, opened;
    char shmPath[40];
} Allocation;

typedef struct {
    unsigned char *p;
    size_t size;
    unsigned flags;
    CUcontext ctx;
} Pinned;

struct CUfunc_st {
    uint32_t magic;
    struct CUmod_st *module;
    char *name;
    int nparams;
    size_t paramSize[MAX_PARAMS];
    size_t paramAlign[MAX_PARAMS];
    int staticShared;
    int maxRegisters; /* the JIT's register cap: .maxnreg or CU_JIT_MAX_REGISTERS, 0 = none */
    int maxDynamicShared;
    int carveout;
};

/* A module-scope `.global` variable of a module: device memory the driver allocates at load. */
typedef struct {
    char *name;
    size_t size;
    uint64_t base;
} ModuleGlobal;

struct CUmod_st {
    uint32_t magic;
    CUcontext ctx;
    char *ptx;
    int callsPrintf; /* its PTX calls vprintf (searched once at load, not at every launch) */
    int ptxVersion;
    int target;
    int nfuncs;
    struct CUfunc_st *funcs;
    int nglobals;
    ModuleGlobal *globals;
};

struct CUstream_st {
    uint32_t magic;
    CUcontext ctx;
    unsigned flags;
};

struct CUevent_st {
    uint32_t magic;
    CUcontext ctx;
    unsigned flags;
    int recorded;     /* cuEventRecord was called */
    int complete;     /* its record has executed */
    uint64_t recordSeq;
    double timeMs;
};

/* Deferred asynchronous work, executed in issue order at synchronization points. */
enum { OP_HTOD, OP_DTOH, OP_LAUNCH, OP_EVENT };
typedef struct {
    int kind;
    uint64_t seq;
    CUstream stream;
    CUcontext ctx;
    uint64_t dptr;
    unsigned char *host;     /* DtoH destination / HtoD source when pinned */
    unsigned char *snapshot; /* HtoD source copied at call time when pageable */
    size_t bytes;
    CUevent event;
    int fault;               /* OP_LAUNCH: CUresult the "kernel" fails with, 0 = none */
    char *printfText;        /* OP_LAUNCH: the device printf output scripted for this launch */
    uint64_t addTo;          /* OP_LAUNCH: a scripted 8-byte module global the "kernel" adds to, 0 = none */
    unsigned long long addAmount;
} Op;

typedef struct {
    char *name;
    int result;
    int atNextCall; /* failKernel: the fault surfaces at the next call of any kind, not at a sync */
} Scripted;

typedef struct {
    char *name;
    int attr;
    int value;
} FuncOverride;

typedef struct {
    char *name; /* kernel */
    char *text; /* what each of its launches prints */
} PrintfScript;

typedef struct {
    char *kernel;
    char *global; /* an 8-byte .global of the kernel's module */
    unsigned long long amount;
} GlobalAddScript;

#define VEC(T) struct { T *v; size_t n, cap; }
#define VEC_PUSH(vec, item)                                                      \
    do {                                                                         \
        if ((vec).n == (vec).cap) {                                              \
            size_t c_ = (vec).cap ? (vec).cap * 2 : 16;                          \
            void *p_ = realloc((vec).v, c_ * sizeof *(vec).v);                   \
            if (!p_) abort();                                                    \
            (vec).v = p_;                                                        \
            (vec).cap = c_;                                                      \
        }                                                                        \
        (vec).v[(vec).n++] = (item);                                             \
    } while (0)
#define VEC_REMOVE(vec, i)                                                       \
    do {                                                                         \
        memmove(&(vec).v[(i)], &(vec).v[(i) + 1], ((vec).n - (i) - 1) * sizeof *(vec).v); \
        (vec).n--;                                                               \
    } while (0)

typedef struct {
    char *name;
    unsigned long count;
} CallCount;

static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
static struct {
    int loaded; /* config read from the environment */
    int initialized;
    int initResult;
    int driverVersion;
    int maxPtxVersion;
    int deviceCount;
    Device devices[MAX_DEVICES];
    VEC(Allocation) allocs; /* sorted by base */
    VEC(Pinned) pinned;
    VEC(Pinned) registered; /* cuMemHostRegister: the program's own memory (never poisoned or freed here) */
    VEC(struct CUmod_st *) modules;
    VEC(struct CUstream_st *) streams;
    VEC(struct CUevent_st *) events;
    VEC(Op) pending;
    VEC(Scripted) failNext;
    VEC(Scripted) failKernel;
    VEC(PrintfScript) printfScripts;
    VEC(GlobalAddScript) globalAddScripts;
    VEC(FuncOverride) funcOverrides;
    VEC(CallCount) calls;
    int jitFailResult;
    char *jitFailLog;
    int sticky;
    double clockMs;
    double launchMs;
    uint64_t seq;
    Text log;
    size_t logEntries;
    int logOff; /* cudaDouble_setLogging(0): calls are counted but not logged */
    char *logFile;
} S;
static __thread CUcontext current_;

/* ------------------------------------------------------------------------------------------ */
/* Error names: those of a slightly older driver (the newest codes are left out on purpose, so  */
/* the bindings' fallback to their own table is exercised).                                    */

static const struct {
    int code;
    const char *name;
    const char *text;
} ERRORS[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {5, "CUDA_ERROR_PROFILER_DISABLED", NULL},
    {6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED", NULL},
    {7, "CUDA_ERROR_PROFILER_ALREADY_STARTED", NULL},
    {8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED", NULL},
    {34, "CUDA_ERROR_STUB_LIBRARY", NULL},
    {36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", NULL},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE", NULL},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED", NULL},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT", NULL},
    {205, "CUDA_ERROR_MAP_FAILED", NULL},
    {206, "CUDA_ERROR_UNMAP_FAILED", NULL},
    {207, "CUDA_ERROR_ARRAY_IS_MAPPED", NULL},
    {208, "CUDA_ERROR_ALREADY_MAPPED", NULL},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
    {210, "CUDA_ERROR_ALREADY_ACQUIRED", NULL},
    {211, "CUDA_ERROR_NOT_MAPPED", NULL},
    {212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", NULL},
    {213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER", NULL},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE", NULL},
    {215, "CUDA_ERROR_UNSUPPORTED_LIMIT", NULL},
    {216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE", NULL},
    {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", NULL},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT", NULL},
    {220, "CUDA_ERROR_NVLINK_UNCORRECTABLE", NULL},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", NULL},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain."},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED", NULL},
    {224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY", NULL},
    {225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC", NULL},
    {300, "CUDA_ERROR_INVALID_SOURCE", NULL},
    {301, "CUDA_ERROR_FILE_NOT_FOUND", NULL},
    {302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", NULL},
    {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", NULL},
    {304, "CUDA_ERROR_OPERATING_SYSTEM", NULL},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {401, "CUDA_ERROR_ILLEGAL_STATE", NULL},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
    {703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING", NULL},
    {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", NULL},
    {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", NULL},
    {708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", NULL},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", NULL},
    {710, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {711, "CUDA_ERROR_TOO_MANY_PEERS", NULL},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", NULL},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", NULL},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR", "hardware stack error"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", "operation not supported on global/shared address space"},
    {718, "CUDA_ERROR_INVALID_PC", "invalid program counter"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", NULL},
    {800, "CUDA_ERROR_NOT_PERMITTED", NULL},
    {801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY", NULL},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", NULL},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", NULL},
    {805, "CUDA_ERROR_MPS_CONNECTION_FAILED", NULL},
    {806, "CUDA_ERROR_MPS_RPC_FAILURE", NULL},
    {807, "CUDA_ERROR_MPS_SERVER_NOT_READY", NULL},
    {808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED", NULL},
    {809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED", NULL},
    {810, "CUDA_ERROR_MPS_CLIENT_TERMINATED", NULL},
    {811, "CUDA_ERROR_CDP_NOT_SUPPORTED", NULL},
    {812, "CUDA_ERROR_CDP_VERSION_MISMATCH", NULL},
    {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", NULL},
    {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", NULL},
    {902, "CUDA_ERROR_STREAM_CAPTURE_MERGE", NULL},
    {903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", NULL},
    {904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", NULL},
    {905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", NULL},
    {906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", NULL},
    {907, "CUDA_ERROR_CAPTURED_EVENT", NULL},
    {908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", NULL},
    {909, "CUDA_ERROR_TIMEOUT", NULL},
    {910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", NULL},
    {911, "CUDA_ERROR_EXTERNAL_DEVICE", NULL},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static int error_index(int code) {
    for (size_t i = 0; i < sizeof ERRORS / sizeof ERRORS[0]; i++)
        if (ERRORS[i].code == code) return (int)i;
    return -1;
}

static int parse_result(const char *s) {
    while (*s == ' ') s++;
    if (isdigit((unsigned char)*s)) return atoi(s);
    for (size_t i = 0; i < sizeof ERRORS / sizeof ERRORS[0]; i++) {
        size_t n = strlen(ERRORS[i].name);
        if (strncmp(s, ERRORS[i].name, n) == 0 && !isalnum((unsigned char)s[n]) && s[n] != '_') return ERRORS[i].code;
    }
    return 999;
}

/* ------------------------------------------------------------------------------------------ */
/* Configuration                                                                               */

static void context_defaults(struct CUctx_st *c);

static void default_device(Device *d, int ordinal) {
    free(d->ctx.fifo);
    memset(d, 0, sizeof *d);
    context_defaults(&d->ctx);
    if (ordinal) snprintf(d->name, sizeof d->name, "CudaScript Test Double #%d", ordinal);
    else snprintf(d->name, sizeof d->name, "CudaScript Test Double");
    int *a = d->attrs;
    /* An sm_80 device (A100-like limits). */
    a[A_MAX_THREADS_PER_BLOCK] = 1024;
    a[A_MAX_BLOCK_DIM_X] = 1024;
    a[A_MAX_BLOCK_DIM_Y] = 1024;
    a[A_MAX_BLOCK_DIM_Z] = 64;
    a[A_MAX_GRID_DIM_X] = 2147483647;
    a[A_MAX_GRID_DIM_Y] = 65535;
    a[A_MAX_GRID_DIM_Z] = 65535;
    a[A_MAX_SHARED_PER_BLOCK] = 49152;
    a[A_TOTAL_CONSTANT_MEMORY] = 65536;
    a[A_WARP_SIZE] = 32;
    a[A_MAX_PITCH] = 2147483647;
    a[A_MAX_REGISTERS_PER_BLOCK] = 65536;
    a[A_CLOCK_RATE] = 1410000;
    a[A_TEXTURE_ALIGNMENT] = 512;
    a[A_GPU_OVERLAP] = 1;
    a[A_MULTIPROCESSOR_COUNT] = 108;
    a[A_CAN_MAP_HOST_MEMORY] = 1;
    a[A_CONCURRENT_KERNELS] = 1;
    a[A_ECC_ENABLED] = 1;
    a[A_PCI_BUS_ID] = 0x10 + ordinal;
    a[A_MEMORY_CLOCK_RATE] = 1215000;
    a[A_GLOBAL_MEMORY_BUS_WIDTH] = 5120;
    a[A_L2_CACHE_SIZE] = 41943040;
    a[A_MAX_THREADS_PER_MULTIPROCESSOR] = 2048;
    a[A_ASYNC_ENGINE_COUNT] = 3;
    a[A_UNIFIED_ADDRESSING] = 1;
    a[A_CC_MAJOR] = 8;
    a[A_CC_MINOR] = 0;
    a[A_MAX_SHARED_PER_MULTIPROCESSOR] = 167936;
    a[A_MAX_REGISTERS_PER_MULTIPROCESSOR] = 65536;
    a[A_MANAGED_MEMORY] = 1;
    a[A_COOPERATIVE_LAUNCH] = 1;
    a[A_MAX_SHARED_PER_BLOCK_OPTIN] = 166912;
    a[A_MAX_BLOCKS_PER_MULTIPROCESSOR] = 32;
    a[A_RESERVED_SHARED_PER_BLOCK] = 1024;
    d->totalMem = 40ULL << 30;
    d->ctx.magic = MAGIC_CTX;
    d->ctx.device = ordinal;
    d->ctx.refcount = 0;
}

static void add_fail_next(const char *name, int result) {
    Scripted s = {strdup(name), result};
    VEC_PUSH(S.failNext, s);
}

/* CUDASCRIPT_DOUBLE_FAIL="cuMemAlloc_v2:2,cuLaunchKernel:CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES" */
static void parse_fail_env(const char *spec) {
    char *copy = strdup(spec), *save = NULL;
    for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        if (!colon) continue;
        *colon = 0;
        while (*item == ' ') item++;
        add_fail_next(item, parse_result(colon + 1));
    }
    free(copy);
}

static void configure_from_env(void) {
    S.loaded = 1;
    S.initialized = 0;
    S.initResult = 0;
    S.driverVersion = 13000;
    S.maxPtxVersion = 90;
    S.deviceCount = 1;
    S.launchMs = 1.0;
    S.clockMs = 0;
    S.sticky = 0;
    S.jitFailResult = 0;
    const char *v;
    if ((v = getenv("CUDASCRIPT_DOUBLE_DEVICES")) && *v) S.deviceCount = atoi(v);
    if (S.deviceCount < 0) S.deviceCount = 0;
    if (S.deviceCount > MAX_DEVICES) S.deviceCount = MAX_DEVICES;
    for (int i = 0; i < MAX_DEVICES; i++) default_device(&S.devices[i], i);
    if ((v = getenv("CUDASCRIPT_DOUBLE_INIT_RESULT")) && *v) S.initResult = parse_result(v);
    if ((v = getenv("CUDASCRIPT_DOUBLE_DRIVER_VERSION")) && *v) S.driverVersion = atoi(v);
    if ((v = getenv("CUDASCRIPT_DOUBLE_FAIL")) && *v) parse_fail_env(v);
    free(S.logFile);
    S.logFile = NULL;
    if ((v = getenv("CUDASCRIPT_DOUBLE_LOG")) && *v) S.logFile = strdup(v);
}

static void lock(void) {
    pthread_mutex_lock(&lock_);
    if (!S.loaded) configure_from_env();
}
static void unlock(void) { pthread_mutex_unlock(&lock_); }

/* ------------------------------------------------------------------------------------------ */
/* Call log                                                                                    */

typedef struct {
    Text t;
    uint64_t seq;
    int quiet; /* not logged (cuGetErrorName / cuGetErrorString) */
} Entry;

static void count_call(const char *name) {
    for (size_t i = 0; i < S.calls.n; i++)
        if (strcmp(S.calls.v[i].name, name) == 0) {
            S.calls.v[i].count++;
            return;
        }
    CallCount c = {strdup(name), 1};
    VEC_PUSH(S.calls, c);
}

static void entry_begin(Entry *e, const char *name) {
    memset(e, 0, sizeof *e);
    e->seq = ++S.seq;
    e->quiet = e->t.off = S.logOff;
    text_printf(&e->t, "{\"seq\":%llu,\"call\":\"%s\"", (unsigned long long)e->seq, name);
    count_call(name);
}
static void f_int(Entry *e, const char *k, long long v) { text_printf(&e->t, ",\"%s\":%lld", k, v); }
static void f_uint(Entry *e, const char *k, unsigned long long v) { text_printf(&e->t, ",\"%s\":%llu", k, v); }
static void f_hex(Entry *e, const char *k, unsigned long long v) { text_printf(&e->t, ",\"%s\":\"0x%llx\"", k, v); }
static void f_ptr(Entry *e, const char *k, const void *p) { f_hex(e, k, (unsigned long long)(uintptr_t)p); }
static void f_bool(Entry *e, const char *k, int v) { text_printf(&e->t, ",\"%s\":%s", k, v ? "true" : "false"); }
static void f_double(Entry *e, const char *k, double v) { text_printf(&e->t, ",\"%s\":%.6f", k, v); }
static void f_str(Entry *e, const char *k, const char *s) {
    text_printf(&e->t, ",\"%s\":", k);
    if (s) text_json_string(&e->t, s, strlen(s));
    else text_add(&e->t, "null", 4);
}

static CUresult finish(Entry *e, int rc) {
    if (!e->quiet) {
        text_printf(&e->t, ",\"result\":%d}\n", (int)rc);
        text_add(&S.log, e->t.p, e->t.len);
        S.logEntries++;
        if (S.logFile) {
            FILE *f = fopen(S.logFile, "a");
            if (f) {
                fwrite(e->t.p, 1, e->t.len, f);
                fclose(f);
            }
        }
    }
    text_free(&e->t);
    unlock();
    return (CUresult)rc;
}

/* A scripted one-shot failure for `name`, if one is queued. */
static int take_fail_next(const char *name) {
    for (size_t i = 0; i < S.failNext.n; i++)
        if (strcmp(S.failNext.v[i].name, name) == 0) {
            int r = S.failNext.v[i].result;
            free(S.failNext.v[i].name);
            VEC_REMOVE(S.failNext, i);
            return r;
        }
    return 0;
}

#define BEGIN(NAME)                                                              \
    lock();                                                                      \
    Entry E;                                                                     \
    entry_begin(&E, NAME);                                                       \
    do {                                                                         \
        int scripted_ = take_fail_next(NAME);                                    \
        if (scripted_) {                                                         \
            f_bool(&E, "scripted", 1);                                           \
            return finish(&E, scripted_);                                        \
        }                                                                        \
    } while (0)
#define RETURN(rc) return finish(&E, (int)(rc))
#define REQUIRE_INIT()                                                           \
    do {                                                                         \
        if (!S.initialized) RETURN(R_NOT_INITIALIZED);                           \
    } while (0)
#define REQUIRE_HEALTHY()                                                        \
    do {                                                                         \
        REQUIRE_INIT();                                                          \
        if (S.sticky) {                                                          \
            f_bool(&E, "sticky", 1);                                             \
            RETURN(S.sticky);                                                    \
        }                                                                        \
    } while (0)
/* The calling thread's current context is a live (retained) primary context. The current context
   is per thread, as in the real driver: a thread that never called cuCtxSetCurrent has none. */
static int context_current(void) { return current_ && current_->magic == MAGIC_CTX && current_->refcount > 0; }
#define REQUIRE_CTX()                                                            \
    do {                                                                         \
        REQUIRE_INIT();                                                          \
        if (!context_current()) RETURN(R_INVALID_CONTEXT);                       \
        if (S.sticky) {                                                          \
            f_bool(&E, "sticky", 1);                                             \
            RETURN(S.sticky);                                                    \
        }                                                                        \
    } while (0)

/* ------------------------------------------------------------------------------------------ */
/* Memory                                                                                      */

/* The live allocation holding [ptr, ptr+bytes), or NULL. */
static Allocation *find_alloc(uint64_t ptr, size_t bytes) {
    size_t lo = 0, hi = S.allocs.n;
    while (lo < hi) { /* first allocation with base > ptr */
        size_t mid = (lo + hi) / 2;
        if (S.allocs.v[mid].base <= ptr) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return NULL;
    Allocation *a = &S.allocs.v[lo - 1];
    if (ptr - a->base > a->size || bytes > a->size - (ptr - a->base)) return NULL;
    if (bytes == 0 && ptr - a->base == a->size) return NULL;
    return a;
}

/* Releases an allocation's bytes: malloc'ed, or (IPC) a shared file mapping, whose file the exporter removes. */
static void release_host(Allocation *a) {
    if (a->mappedBytes) {
        munmap(a->host, a->mappedBytes);
        if (a->exported) unlink(a->shmPath);
    } else free(a->host);
    a->host = NULL;
}

/* Places `bytes` of zeroed "device memory" for `ctx` (module: a module global, else NULL). Like the
   real driver, freed addresses are reused: the lowest free range that fits, with a guard gap after
   each allocation (so an overrun still lands outside any allocation). A stale pointer to a freed
   allocation may therefore point into a new one, as on a GPU. */
/* What fresh cuMemAlloc / cuMemHostAlloc / cuMemAllocManaged memory holds (the driver promises nothing). */
#define FRESH_MEMORY_BYTE 0xcd

static int place_alloc(size_t bytes, CUcontext ctx, struct CUmod_st *module, uint64_t *out) {
    Device *d = &S.devices[ctx->device];
    unsigned long long live = 0;
    for (size_t i = 0; i < S.allocs.n; i++) live += S.allocs.v[i].size;
    if (bytes > d->totalMem - live) return R_OUT_OF_MEMORY;
    unsigned char *host = calloc(1, bytes ? bytes : 1);
    if (!host) return R_OUT_OF_MEMORY;
    /* A GPU's fresh memory holds whatever was there: cuMemAlloc gets garbage (a module's globals
       are zero-initialised, as the loader does), so a test sees any read of memory nobody wrote. */
    if (!module) memset(host, FRESH_MEMORY_BYTE, bytes);
    uint64_t span = (bytes + DEVICE_ALIGN - 1) / DEVICE_ALIGN * DEVICE_ALIGN + DEVICE_ALIGN;
    uint64_t base = DEVICE_BASE;
    size_t at = 0;
    while (at < S.allocs.n && S.allocs.v[at].base < base + span) {
        Allocation *prev = &S.allocs.v[at];
        uint64_t end = prev->base + (prev->size + DEVICE_ALIGN - 1) / DEVICE_ALIGN * DEVICE_ALIGN + DEVICE_ALIGN;
        if (end > base) base = end;
        at++;
    }
    Allocation a = {.base = base, .size = bytes, .host = host, .ctx = ctx, .module = module};
    VEC_PUSH(S.allocs, a); /* grow, then move into place: S.allocs stays sorted by base */
    memmove(&S.allocs.v[at + 1], &S.allocs.v[at], (S.allocs.n - 1 - at) * sizeof a);
    S.allocs.v[at] = a;
    *out = base;
    return R_SUCCESS;
}

/* Page-locked memory counts as pinned for the current context only if it was allocated in it, or
   with CU_MEMHOSTALLOC_PORTABLE: to every other context it is pageable (cuMemHostAlloc docs). */
static int is_pinned(const void *p, size_t bytes) {
    uintptr_t x = (uintptr_t)p;
    for (size_t i = 0; i < S.pinned.n; i++) {
        if (S.pinned.v[i].ctx != current_ && !(S.pinned.v[i].flags & 0x1u)) continue;
        uintptr_t b = (uintptr_t)S.pinned.v[i].p;
        if (x >= b && x - b <= S.pinned.v[i].size && bytes <= S.pinned.v[i].size - (x - b)) return 1;
    }
    for (size_t i = 0; i < S.registered.n; i++) {
        if (S.registered.v[i].ctx != current_ && !(S.registered.v[i].flags & 0x1u)) continue;
        uintptr_t b = (uintptr_t)S.registered.v[i].p;
        if (x >= b && x - b <= S.registered.v[i].size && bytes <= S.registered.v[i].size - (x - b)) return 1;
    }
    return 0;
}

static int stream_valid(CUstream s) {
    if (!s) return 1;
    for (size_t i = 0; i < S.streams.n; i++)
        if (S.streams.v[i] == s) return 1;
    return 0;
}
static int event_valid(CUevent e) {
    for (size_t i = 0; i < S.events.n; i++)
        if (S.events.v[i] == e) return 1;
    return 0;
}
static int module_valid(CUmodule m) {
    for (size_t i = 0; i < S.modules.n; i++)
        if (S.modules.v[i] == m) return 1;
    return 0;
}
static int function_valid(CUfunction f) {
    for (size_t i = 0; i < S.modules.n; i++) {
        struct CUmod_st *m = S.modules.v[i];
        if (f >= m->funcs && f < m->funcs + m->nfuncs) return f->magic == MAGIC_FUNC;
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Device printf                                                                               */

static void context_defaults(struct CUctx_st *c) {
    c->limits[LIMIT_STACK_SIZE] = 1024;
    c->limits[LIMIT_PRINTF_FIFO_SIZE] = DEFAULT_PRINTF_FIFO;
    c->limits[LIMIT_MALLOC_HEAP_SIZE] = 8u << 20;
    c->printfLaunched = 0;
    free(c->fifo);
    c->fifo = NULL;
    c->fifoLen = 0;
    c->printfDropped = 0;
}

/* A launch's printf output enters the FIFO one line (one printf record) at a time; records that no
   longer fit are dropped, as a full FIFO loses output on a GPU. */
static void fifo_append(struct CUctx_st *c, const char *text) {
    size_t size = c->limits[LIMIT_PRINTF_FIFO_SIZE];
    if (!c->fifo) c->fifo = malloc(size ? size : 1);
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t n = nl ? (size_t)(nl - text) + 1 : strlen(text);
        if (c->fifoLen + n <= size) {
            memcpy(c->fifo + c->fifoLen, text, n);
            c->fifoLen += n;
        } else {
            c->printfDropped += n;
        }
        text += n;
    }
}

/* At a synchronization point the host side of printf writes out what the FIFO holds. */
static void fifo_flush(Entry *e) {
    size_t printed = 0;
    for (int d = 0; d < S.deviceCount; d++) {
        struct CUctx_st *c = &S.devices[d].ctx;
        if (!c->fifoLen) continue;
        fflush(stdout);
        size_t off = 0;
        while (off < c->fifoLen) {
            ssize_t w = write(1, c->fifo + off, c->fifoLen - off);
            if (w <= 0) break;
            off += (size_t)w;
        }
        printed += c->fifoLen;
        c->fifoLen = 0;
    }
    if (printed && e) f_uint(e, "printfBytes", printed);
}

/* ------------------------------------------------------------------------------------------ */
/* Deferred work                                                                               */

static void execute(Op *op) {
    switch (op->kind) {
    case OP_HTOD: {
        Allocation *a = find_alloc(op->dptr, op->bytes);
        if (a) memcpy(a->host + (op->dptr - a->base), op->snapshot ? op->snapshot : op->host, op->bytes);
        break;
    }
    case OP_DTOH: {
        Allocation *a = find_alloc(op->dptr, op->bytes);
        if (a) memcpy(op->host, a->host + (op->dptr - a->base), op->bytes);
        break;
    }
    case OP_LAUNCH:
        S.clockMs += S.launchMs;
        if (op->fault && !S.sticky) S.sticky = op->fault;
        if (op->printfText && !op->fault) fifo_append(op->ctx, op->printfText);
        if (op->addTo && !op->fault) {
            Allocation *g = find_alloc(op->addTo, 8);
            unsigned long long v;
            if (g) {
                memcpy(&v, g->host + (op->addTo - g->base), 8);
                v += op->addAmount;
                memcpy(g->host + (op->addTo - g->base), &v, 8);
            }
        }
        free(op->printfText);
        op->printfText = NULL;
        break;
    case OP_EVENT:
        /* Only the event's latest record counts (an event may be re-recorded before it completes). */
        if (op->event && op->event->recordSeq == op->seq) {
            op->event->complete = 1;
            op->event->timeMs = S.clockMs;
        }
        break;
    }
    free(op->snapshot);
    op->snapshot = NULL;
}

/* Executes pending work issued up to and including `seq`, in issue order. */
static void flush_until(uint64_t seq) {
    size_t done = 0;
    while (done < S.pending.n && S.pending.v[done].seq <= seq) {
        execute(&S.pending.v[done]);
        done++;
    }
    if (done) {
        memmove(S.pending.v, S.pending.v + done, (S.pending.n - done) * sizeof *S.pending.v);
        S.pending.n -= done;
    }
}
static void flush_all(void) { flush_until(UINT64_MAX); }
static void flush_stream(CUstream s) {
    uint64_t last = 0;
    for (size_t i = 0; i < S.pending.n; i++)
        if (S.pending.v[i].stream == s) last = S.pending.v[i].seq;
    if (last) flush_until(last);
}
static void enqueue(Op op) { VEC_PUSH(S.pending, op); }

/* ------------------------------------------------------------------------------------------ */
/* PTX parsing                                                                                 */

static int type_size(const char *tok, size_t n) {
    /* .b8 .u16 .s32 .f64 ... */
    if (n < 3 || tok[0] != '.') return 0;
    if (!strchr("bsuf", tok[1])) return 0;
    int bits = 0;
    for (size_t i = 2; i < n; i++) {
        if (!isdigit((unsigned char)tok[i])) return 0;
        bits = bits * 10 + (tok[i] - '0');
    }
    return bits == 8 || bits == 16 || bits == 32 || bits == 64 ? bits / 8 : 0;
}

/* Parses one declaration ".param .align 8 .b8 name[16]" / ".shared .f32 x[4]": element size,
   alignment, name span and total size. Returns 0 when no type was found. */
static int parse_decl(const char *s, const char *end, size_t *size, size_t *align, const char **name, size_t *nameLen) {
    size_t elem = 0, al = 0;
    const char *p = s;
    *name = NULL;
    *nameLen = 0;
    while (p < end) {
        while (p < end && isspace((unsigned char)*p)) p++;
        const char *t = p;
        while (p < end && !isspace((unsigned char)*p) && *p != '[' && *p != ',' && *p != ';' && *p != ')') p++;
        size_t n = (size_t)(p - t);
        if (n == 0) break;
        if (n == 6 && strncmp(t, ".align", 6) == 0) {
            while (p < end && isspace((unsigned char)*p)) p++;
            al = (size_t)strtoul(p, NULL, 10);
            while (p < end && isdigit((unsigned char)*p)) p++;
            continue;
        }
        int ts = type_size(t, n);
        if (ts) {
            elem = (size_t)ts;
            continue;
        }
        if (t[0] == '.') continue; /* .param .ptr .global .shared ... */
        *name = t;
        *nameLen = n;
        break;
    }
    if (!elem || !*name) return 0;
    size_t count = 1;
    while (p < end && isspace((unsigned char)*p)) p++;
    if (p < end && *p == '[') {
        p++;
        while (p < end && isspace((unsigned char)*p)) p++;
        count = (p < end && *p == ']') ? 0 : (size_t)strtoul(p, NULL, 10); /* [] = extern/dynamic */
    }
    *size = elem * count;
    *align = al ? al : elem;
    return 1;
}

typedef struct {
    const char *name;
    size_t nameLen;
    size_t size;
    size_t at; /* offset of the declaration in the PTX */
} SharedVar;

static const char *find_matching(const char *p, const char *end, char open, char close) {
    int depth = 0;
    for (; p < end; p++) {
        if (*p == open) depth++;
        else if (*p == close && --depth == 0) return p;
    }
    return NULL;
}

/* Fills m->funcs from the PTX text; returns 0, or a CUresult with a log message in *log. */
static int parse_ptx(struct CUmod_st *m, const char *ptx, int deviceArch, char **log) {
    const char *end = ptx + strlen(ptx);
    const char *v = strstr(ptx, ".version");
    char msg[512];
    if (!v) {
        *log = strdup("ptxas application ptx input, line 1; fatal   : Missing .version directive at start of file "
                      "(CudaScript driver TEST DOUBLE)");
        return R_INVALID_PTX;
    }
    int major = 0, minor = 0;
    sscanf(v + 8, " %d.%d", &major, &minor);
    m->ptxVersion = major * 10 + minor;
    if (m->ptxVersion > S.maxPtxVersion) {
        snprintf(msg, sizeof msg,
                 "ptxas application ptx input, line 1; fatal   : Unsupported .version %d.%d; current version is '%d.%d' "
                 "(CudaScript driver TEST DOUBLE)",
                 major, minor, S.maxPtxVersion / 10, S.maxPtxVersion % 10);
        *log = strdup(msg);
        return R_UNSUPPORTED_PTX_VERSION;
    }
    const char *t = strstr(ptx, ".target");
    m->target = 0;
    if (t) sscanf(t + 7, " sm_%d", &m->target);
    if (m->target > deviceArch) {
        snprintf(msg, sizeof msg,
                 "ptxas fatal   : SM version specified by .target (sm_%d) is higher than the device's (sm_%d) "
                 "(CudaScript driver TEST DOUBLE)",
                 m->target, deviceArch);
        *log = strdup(msg);
        return R_INVALID_PTX;
    }

    /* Shared variables anywhere in the module. */
    VEC(SharedVar) shared = {0};
    for (const char *p = ptx; (p = strstr(p, ".shared")) != NULL; p += 7) {
        if (p > ptx && !isspace((unsigned char)p[-1])) continue;
        const char *lineStart = p;
        while (lineStart > ptx && lineStart[-1] != '\n') lineStart--;
        const char *semi = memchr(p, ';', (size_t)(end - p));
        if (!semi) break;
        if (memmem(lineStart, (size_t)(p - lineStart), ".extern", 7)) continue; /* dynamic shared memory */
        const char *name;
        size_t nameLen, size, align;
        /* Skip instructions such as "ld.shared.f32": the declaration starts the statement. */
        const char *q = lineStart;
        while (q < p && isspace((unsigned char)*q)) q++;
        if (q != p && strncmp(q, ".visible", 8) != 0 && strncmp(q, ".weak", 5) != 0) continue;
        if (parse_decl(p + 7, semi, &size, &align, &name, &nameLen)) {
            SharedVar sv = {name, nameLen, size, (size_t)(p - ptx)};
            VEC_PUSH(shared, sv);
        }
    }

    /* Module-scope .global variables (".global .align 8 .u64 x;", ".visible .global .b8 s[12] = {...};"):
       the driver gives each device memory at load. Declarations (.extern) define nothing; instructions
       such as "ld.global.u32" do not start the statement. Initializers are not evaluated: the memory
       starts zeroed. */
    VEC(ModuleGlobal) globals = {0};
    for (const char *p = ptx; (p = strstr(p, ".global")) != NULL; p += 7) {
        if (p > ptx && !isspace((unsigned char)p[-1])) continue;
        if (p + 7 < end && !isspace((unsigned char)p[7])) continue;
        const char *lineStart = p;
        while (lineStart > ptx && lineStart[-1] != '\n') lineStart--;
        const char *q = lineStart;
        while (q < p && isspace((unsigned char)*q)) q++;
        if (q != p && strncmp(q, ".visible", 8) != 0 && strncmp(q, ".weak", 5) != 0) continue;
        const char *semi = memchr(p, ';', (size_t)(end - p));
        if (!semi) break;
        const char *eq = memchr(p, '=', (size_t)(semi - p));
        const char *name;
        size_t nameLen, size, align;
        if (parse_decl(p + 7, eq ? eq : semi, &size, &align, &name, &nameLen)) {
            ModuleGlobal g = {strndup(name, nameLen), size, 0};
            VEC_PUSH(globals, g);
        }
    }
    m->globals = globals.v;
    m->nglobals = (int)globals.n;

    /* Entries. */
    VEC(struct CUfunc_st) funcs = {0};
    for (const char *p = ptx; (p = strstr(p, ".entry")) != NULL; p += 6) {
        if (p > ptx && !isspace((unsigned char)p[-1])) continue;
        const char *q = p + 6;
        while (q < end && isspace((unsigned char)*q)) q++;
        const char *nameStart = q;
        while (q < end && (isalnum((unsigned char)*q) || *q == '_' || *q == '$')) q++;
        if (q == nameStart) continue;
        struct CUfunc_st f;
        memset(&f, 0, sizeof f);
        f.magic = MAGIC_FUNC;
        f.name = strndup(nameStart, (size_t)(q - nameStart));
        f.carveout = -1;
        while (q < end && isspace((unsigned char)*q)) q++;
        if (q < end && *q == '(') {
            const char *close = find_matching(q, end, '(', ')');
            if (!close) close = end;
            const char *item = q + 1;
            while (item < close && f.nparams < MAX_PARAMS) {
                const char *comma = memchr(item, ',', (size_t)(close - item));
                const char *itemEnd = comma ? comma : close;
                const char *decl = strstr(item, ".param");
                if (decl && decl < itemEnd) {
                    const char *name;
                    size_t nameLen, size, align;
                    if (parse_decl(decl + 6, itemEnd, &size, &align, &name, &nameLen)) {
                        f.paramSize[f.nparams] = size;
                        f.paramAlign[f.nparams] = align;
                        f.nparams++;
                    }
                }
                if (!comma) break;
                item = comma + 1;
            }
            q = close;
        }
        /* Body: static shared memory declared in it or referenced from module scope. */
        const char *open = memchr(q, '{', (size_t)(end - q));
        const char *semi = memchr(q, ';', (size_t)(end - q));
        if (open && (!semi || open < semi)) {
            /* Performance directives between the parameters and the body: .maxnreg caps registers. */
            const char *maxnreg = memmem(q, (size_t)(open - q), ".maxnreg", 8);
            if (maxnreg) sscanf(maxnreg + 8, " %d", &f.maxRegisters);
            const char *close = find_matching(open, end, '{', '}');
            if (!close) close = end;
            size_t b0 = (size_t)(open - ptx), b1 = (size_t)(close - ptx);
            for (size_t i = 0; i < shared.n; i++) {
                SharedVar *sv = &shared.v[i];
                if (sv->at >= b0 && sv->at < b1) f.staticShared += (int)sv->size;
                else if (memmem(open, (size_t)(close - open), sv->name, sv->nameLen)) f.staticShared += (int)sv->size;
            }
        }
        VEC_PUSH(funcs, f);
    }
    free(shared.v);
    m->funcs = funcs.v;
    m->nfuncs = (int)funcs.n;
    return 0;
}

static int func_override(const char *name, int attr, int fallback) {
    for (size_t i = S.funcOverrides.n; i-- > 0;)
        if (S.funcOverrides.v[i].attr == attr && strcmp(S.funcOverrides.v[i].name, name) == 0) return S.funcOverrides.v[i].value;
    return fallback;
}

static int func_attr(struct CUfunc_st *f, int attr) {
    Device *d = &S.devices[f->module->ctx->device];
    switch (attr) {
    case F_MAX_THREADS_PER_BLOCK: return func_override(f->name, attr, d->attrs[A_MAX_THREADS_PER_BLOCK]);
    case F_SHARED_SIZE_BYTES: return func_override(f->name, attr, f->staticShared);
    case F_CONST_SIZE_BYTES: return func_override(f->name, attr, 0);
    case F_LOCAL_SIZE_BYTES: return func_override(f->name, attr, 0);
    case F_NUM_REGS: {
        /* An override is what the kernel needs; like ptxas, the JIT never gives it more than its cap. */
        int regs = func_override(f->name, attr, 32);
        return f->maxRegisters > 0 && regs > f->maxRegisters ? f->maxRegisters : regs;
    }
    case F_PTX_VERSION: return f->module->ptxVersion;
    case F_BINARY_VERSION: return d->attrs[A_CC_MAJOR] * 10 + d->attrs[A_CC_MINOR];
    case F_MAX_DYNAMIC_SHARED_SIZE_BYTES: return f->maxDynamicShared;
    case F_PREFERRED_SHARED_MEMORY_CARVEOUT: return f->carveout;
    default: return 0;
    }
}

static void free_module(struct CUmod_st *m) {
    for (int i = 0; i < m->nfuncs; i++) {
        m->funcs[i].magic = 0;
        free(m->funcs[i].name);
    }
    free(m->funcs);
    for (int i = 0; i < m->nglobals; i++) {
        Allocation *a = m->globals[i].base ? find_alloc(m->globals[i].base, 0) : NULL;
        if (a && a->module == m) {
            release_host(a);
            VEC_REMOVE(S.allocs, (size_t)(a - S.allocs.v));
        }
        free(m->globals[i].name);
    }
    free(m->globals);
    free(m->ptx);
    m->magic = 0;
    free(m);
}

/* The pages a pinned buffer of `bytes` bytes occupies. */
static size_t pinned_span(size_t bytes) { return (bytes + 4095) / 4096 * 4096; }

/* Freed page-locked memory is returned to the OS on a GPU: touching it through a view that outlived
   it is a use-after-free that may crash or read another allocation. The double makes it crash every
   time: the pages lose their contents and all access (PROT_NONE) and stay reserved, so no later
   mapping can reuse the address and hide the bug. */
static void poison_pinned(Pinned *pin) {
    size_t span = pinned_span(pin->size);
    madvise(pin->p, span, MADV_DONTNEED);
    mprotect(pin->p, span, PROT_NONE);
}

/* Frees everything that belongs to `ctx` (or to any context when ctx is NULL); returns how many
   objects there were. */
static int reclaim(CUcontext ctx) {
    int n = 0;
    for (size_t i = S.pending.n; i-- > 0;)
        if (!ctx || S.pending.v[i].ctx == ctx) {
            free(S.pending.v[i].snapshot);
            VEC_REMOVE(S.pending, i);
        }
    for (size_t i = S.allocs.n; i-- > 0;)
        if ((!ctx || S.allocs.v[i].ctx == ctx) && !S.allocs.v[i].module) { /* globals: with their module */
            release_host(&S.allocs.v[i]);
            VEC_REMOVE(S.allocs, i);
            n++;
        }
    for (size_t i = S.pinned.n; i-- > 0;)
        if (!ctx || S.pinned.v[i].ctx == ctx) {
            poison_pinned(&S.pinned.v[i]);
            VEC_REMOVE(S.pinned, i);
            n++;
        }
    for (size_t i = S.registered.n; i-- > 0;)
        if (!ctx || S.registered.v[i].ctx == ctx) {
            VEC_REMOVE(S.registered, i);
            n++;
        }
    for (size_t i = S.modules.n; i-- > 0;)
        if (!ctx || S.modules.v[i]->ctx == ctx) {
            free_module(S.modules.v[i]);
            VEC_REMOVE(S.modules, i);
            n++;
        }
    for (size_t i = S.streams.n; i-- > 0;)
        if (!ctx || S.streams.v[i]->ctx == ctx) {
            S.streams.v[i]->magic = 0;
            free(S.streams.v[i]);
            VEC_REMOVE(S.streams, i);
            n++;
        }
    for (size_t i = S.events.n; i-- > 0;)
        if (!ctx || S.events.v[i]->ctx == ctx) {
            S.events.v[i]->magic = 0;
            free(S.events.v[i]);
            VEC_REMOVE(S.events, i);
            n++;
        }
    return n;
}

/* ------------------------------------------------------------------------------------------ */
/* Driver API                                                                                  */

EXPORT CUresult CUDAAPI cuInit(unsigned int Flags) {
    BEGIN("cuInit");
    f_uint(&E, "flags", Flags);
    if (Flags != 0) RETURN(R_INVALID_VALUE);
    if (S.initResult) RETURN(S.initResult);
    S.initialized = 1;
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuDriverGetVersion(int *driverVersion) {
    BEGIN("cuDriverGetVersion");
    if (!driverVersion) RETURN(R_INVALID_VALUE);
    *driverVersion = S.driverVersion;
    f_int(&E, "version", S.driverVersion);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuDeviceGetCount(int *count) {
    BEGIN("cuDeviceGetCount");
    REQUIRE_INIT();
    if (!count) RETURN(R_INVALID_VALUE);
    *count = S.deviceCount;
    f_int(&E, "count", S.deviceCount);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal) {
    BEGIN("cuDeviceGet");
    f_int(&E, "ordinal", ordinal);
    REQUIRE_INIT();
    if (!device) RETURN(R_INVALID_VALUE);
    if (ordinal < 0 || ordinal >= S.deviceCount) RETURN(R_INVALID_DEVICE);
    *device = ordinal;
    RETURN(R_SUCCESS);
}

#define REQUIRE_DEVICE(dev)                                                      \
    do {                                                                         \
        REQUIRE_INIT();                                                          \
        if ((dev) < 0 || (dev) >= S.deviceCount) RETURN(R_INVALID_DEVICE);       \
    } while (0)

EXPORT CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev) {
    BEGIN("cuDeviceGetName");
    f_int(&E, "device", dev);
    REQUIRE_DEVICE(dev);
    if (!name || len <= 0) RETURN(R_INVALID_VALUE);
    snprintf(name, (size_t)len, "%s", S.devices[dev].name);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
    BEGIN("cuDeviceGetAttribute");
    f_int(&E, "device", dev);
    f_int(&E, "attribute", (int)attrib);
    REQUIRE_DEVICE(dev);
    if (!pi || (int)attrib <= 0 || (int)attrib >= A_COUNT) RETURN(R_INVALID_VALUE);
    *pi = S.devices[dev].attrs[attrib];
    f_int(&E, "value", *pi);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
    BEGIN("cuDeviceTotalMem_v2");
    f_int(&E, "device", dev);
    REQUIRE_DEVICE(dev);
    if (!bytes) RETURN(R_INVALID_VALUE);
    *bytes = (size_t)S.devices[dev].totalMem;
    f_uint(&E, "bytes", S.devices[dev].totalMem);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
    BEGIN("cuDevicePrimaryCtxRetain");
    f_int(&E, "device", dev);
    REQUIRE_DEVICE(dev);
    if (!pctx) RETURN(R_INVALID_VALUE);
    struct CUctx_st *c = &S.devices[dev].ctx;
    c->refcount++;
    *pctx = c;
    f_ptr(&E, "context", c);
    f_int(&E, "refcount", c->refcount);
    RETURN(R_SUCCESS);
}

static int primary_release(Entry *e, CUdevice dev) {
    if (!S.initialized) return R_NOT_INITIALIZED;
    if (dev < 0 || dev >= S.deviceCount) return R_INVALID_DEVICE;
    struct CUctx_st *c = &S.devices[dev].ctx;
    if (c->refcount <= 0) return R_INVALID_CONTEXT;
    c->refcount--;
    f_int(e, "refcount", c->refcount);
    if (c->refcount == 0) {
        /* The primary context is destroyed: everything still in it goes, and a sticky error with it. */
        int reclaimed = reclaim(c);
        fifo_flush(e); /* destroying a context flushes its printf output */
        context_defaults(c);
        f_bool(e, "destroyed", 1);
        f_int(e, "reclaimed", reclaimed);
        S.sticky = 0;
    }
    return R_SUCCESS;
}

#ifndef CUDASCRIPT_DOUBLE_OLD_DRIVER
EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    BEGIN("cuDevicePrimaryCtxRelease_v2");
    f_int(&E, "device", dev);
    RETURN(primary_release(&E, dev));
}
#endif

/* The pre-CUDA-11 symbol (drivers keep exporting it). */
#ifdef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxRelease
#endif
EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) {
    BEGIN("cuDevicePrimaryCtxRelease");
    f_int(&E, "device", dev);
    RETURN(primary_release(&E, dev));
}

EXPORT CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
    BEGIN("cuCtxSetCurrent");
    f_ptr(&E, "context", ctx);
    REQUIRE_INIT();
    if (ctx && ctx->magic != MAGIC_CTX) RETURN(R_INVALID_CONTEXT);
    current_ = ctx;
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuCtxSynchronize(void) {
    BEGIN("cuCtxSynchronize");
    REQUIRE_CTX();
    flush_all();
    fifo_flush(&E);
    if (S.sticky) RETURN(S.sticky);
    RETURN(R_SUCCESS);
}

/* cuda.h: CU_LIMIT_PRINTF_FIFO_SIZE (and the malloc heap) "must be performed before launching any
   kernel that uses the printf() device system call, otherwise CUDA_ERROR_INVALID_VALUE". */
EXPORT CUresult CUDAAPI cuCtxSetLimit(CUlimit limit, size_t value) {
    BEGIN("cuCtxSetLimit");
    f_int(&E, "limit", (int)limit);
    f_uint(&E, "value", value);
    REQUIRE_CTX();
    if ((int)limit < 0 || (int)limit > LIMIT_MALLOC_HEAP_SIZE) RETURN(R_UNSUPPORTED_LIMIT);
    if (((int)limit == LIMIT_PRINTF_FIFO_SIZE || (int)limit == LIMIT_MALLOC_HEAP_SIZE) && current_->printfLaunched)
        RETURN(R_INVALID_VALUE);
    if ((int)limit == LIMIT_PRINTF_FIFO_SIZE && current_->fifoLen > value) RETURN(R_INVALID_VALUE);
    current_->limits[(int)limit] = value;
    if ((int)limit == LIMIT_PRINTF_FIFO_SIZE) {
        free(current_->fifo);
        current_->fifo = NULL;
    }
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuCtxGetLimit(size_t *pvalue, CUlimit limit) {
    BEGIN("cuCtxGetLimit");
    f_int(&E, "limit", (int)limit);
    REQUIRE_CTX();
    if (!pvalue) RETURN(R_INVALID_VALUE);
    if ((int)limit < 0 || (int)limit > LIMIT_MALLOC_HEAP_SIZE) RETURN(R_UNSUPPORTED_LIMIT);
    *pvalue = current_->limits[(int)limit];
    f_uint(&E, "value", *pvalue);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) {
    BEGIN("cuMemAlloc_v2");
    f_uint(&E, "bytes", bytesize);
    REQUIRE_CTX();
    if (!dptr || bytesize == 0) RETURN(R_INVALID_VALUE);
    uint64_t base;
    int r = place_alloc(bytesize, current_, NULL, &base);
    if (r) RETURN(r);
    *dptr = base;
    f_hex(&E, "dptr", base);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr) {
    BEGIN("cuMemFree_v2");
    f_hex(&E, "dptr", dptr);
    REQUIRE_CTX();
    flush_all();
    Allocation *a = find_alloc(dptr, 0);
    if (!a || a->base != dptr || a->module) RETURN(R_INVALID_VALUE); /* a module's globals go with the module */
    if (a->opened) RETURN(R_INVALID_VALUE); /* another process's memory: cuIpcCloseMemHandle releases it */
    release_host(a);
    VEC_REMOVE(S.allocs, (size_t)(a - S.allocs.v));
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
    BEGIN("cuMemcpyHtoD_v2");
    f_hex(&E, "dst", dstDevice);
    f_uint(&E, "bytes", ByteCount);
    f_bool(&E, "pinned", is_pinned(srcHost, ByteCount));
    REQUIRE_CTX();
    if (ByteCount == 0) RETURN(R_SUCCESS);
    Allocation *a = find_alloc(dstDevice, ByteCount);
    if (!a || !srcHost) RETURN(R_INVALID_VALUE);
    flush_all();
    if (S.sticky) RETURN(S.sticky);
    memcpy(a->host + (dstDevice - a->base), srcHost, ByteCount);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
    BEGIN("cuMemcpyDtoH_v2");
    f_hex(&E, "src", srcDevice);
    f_uint(&E, "bytes", ByteCount);
    f_bool(&E, "pinned", is_pinned(dstHost, ByteCount));
    REQUIRE_CTX();
    if (ByteCount == 0) RETURN(R_SUCCESS);
    Allocation *a = find_alloc(srcDevice, ByteCount);
    if (!a || !dstHost) RETURN(R_INVALID_VALUE);
    flush_all();
    if (S.sticky) RETURN(S.sticky);
    memcpy(dstHost, a->host + (srcDevice - a->base), ByteCount);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream) {
    BEGIN("cuMemcpyHtoDAsync_v2");
    int pinned = is_pinned(srcHost, ByteCount);
    f_hex(&E, "dst", dstDevice);
    f_uint(&E, "bytes", ByteCount);
    f_ptr(&E, "stream", hStream);
    f_bool(&E, "pinned", pinned);
    REQUIRE_CTX();
    if (!stream_valid(hStream)) RETURN(R_INVALID_HANDLE);
    if (ByteCount == 0) RETURN(R_SUCCESS);
    if (!find_alloc(dstDevice, ByteCount) || !srcHost) RETURN(R_INVALID_VALUE);
    /* Pinned or pageable, the source is read when the copy runs: for pageable memory CUDA only says
       the copy "might be synchronous", so a caller must keep the buffer alive and unchanged until
       the stream is synchronized. */
    Op op = {OP_HTOD, E.seq, hStream, current_, dstDevice, (unsigned char *)srcHost, NULL, ByteCount, NULL, 0, NULL, 0, 0};
    enqueue(op);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
    BEGIN("cuMemcpyDtoHAsync_v2");
    int pinned = is_pinned(dstHost, ByteCount);
    f_hex(&E, "src", srcDevice);
    f_uint(&E, "bytes", ByteCount);
    f_ptr(&E, "stream", hStream);
    f_bool(&E, "pinned", pinned);
    REQUIRE_CTX();
    if (!stream_valid(hStream)) RETURN(R_INVALID_HANDLE);
    if (ByteCount == 0) RETURN(R_SUCCESS);
    if (!find_alloc(srcDevice, ByteCount) || !dstHost) RETURN(R_INVALID_VALUE);
    /* Into pageable memory too, the data arrives only when the copy runs (CUDA: "might be
       synchronous", so no caller may count on it having completed on return). */
    Op op = {OP_DTOH, E.seq, hStream, current_, srcDevice, dstHost, NULL, ByteCount, NULL, 0, NULL, 0, 0};
    enqueue(op);
    RETURN(R_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Inter-process memory (CUDA IPC)                                                             */
/* The double's CUipcMemHandle (64 opaque bytes on a real driver): the magic "CSDBLIPC", the
   exporting process id, the allocation's size, and the path of the file in /dev/shm that holds its
   bytes. cuIpcGetMemHandle moves the allocation's bytes into that file (mapped MAP_SHARED, at the
   same device address), so both processes read and write the same memory, as on one GPU. */

#define IPC_MAGIC "CSDBLIPC"
typedef struct {
    char magic[8];
    uint32_t pid;
    uint32_t reserved;
    uint64_t size;
    char path[40];
} IpcHandle;
_Static_assert(sizeof(IpcHandle) == 64, "CUipcMemHandle is 64 bytes");

/* Maps `bytes` of the file `fd` shared; NULL on failure. */
static unsigned char *map_shared(int fd, size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : (unsigned char *)p;
}

EXPORT CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr) {
    BEGIN("cuIpcGetMemHandle");
    f_hex(&E, "dptr", dptr);
    REQUIRE_CTX();
    Allocation *a = find_alloc(dptr, 0);
    /* The base of a cuMemAlloc allocation (not a module's global, not another process's memory). */
    if (!pHandle || !a || a->base != dptr || a->module || a->opened || a->host == NULL) RETURN(R_INVALID_VALUE);
    if ((uint64_t)(uintptr_t)a->host == a->base) RETURN(R_INVALID_VALUE); /* managed memory */
    flush_all();
    if (!a->exported) {
        static unsigned serial;
        char path[40];
        snprintf(path, sizeof path, "/dev/shm/csdbl-%d-%u", (int)getpid(), ++serial);
        int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0) RETURN(R_OUT_OF_MEMORY);
        size_t bytes = a->size ? a->size : 1;
        unsigned char *m = ftruncate(fd, (off_t)bytes) == 0 ? map_shared(fd, bytes) : NULL;
        close(fd);
        if (!m) {
            unlink(path);
            RETURN(R_OUT_OF_MEMORY);
        }
        memcpy(m, a->host, a->size);
        free(a->host);
        a->host = m;
        a->mappedBytes = bytes;
        a->exported = 1;
        memcpy(a->shmPath, path, sizeof a->shmPath);
    }
    IpcHandle h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, IPC_MAGIC, 8);
    h.pid = (uint32_t)getpid();
    h.size = a->size;
    memcpy(h.path, a->shmPath, sizeof h.path);
    memcpy(pHandle, &h, sizeof h);
    f_str(&E, "file", a->shmPath);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags) {
    BEGIN("cuIpcOpenMemHandle_v2");
    f_uint(&E, "flags", Flags);
    REQUIRE_CTX();
    IpcHandle h;
    memcpy(&h, &handle, sizeof h);
    if (!pdptr || memcmp(h.magic, IPC_MAGIC, 8) != 0 || h.path[sizeof h.path - 1] != 0) RETURN(R_INVALID_VALUE);
    f_str(&E, "file", h.path);
    f_int(&E, "pid", h.pid);
    /* The real driver refuses to open a handle in the process that made it. */
    if (h.pid == (uint32_t)getpid()) RETURN(R_INVALID_CONTEXT);
    int fd = open(h.path, O_RDWR);
    if (fd < 0) RETURN(R_INVALID_HANDLE); /* freed by its exporter (or never there) */
    size_t bytes = h.size ? h.size : 1;
    unsigned char *m = map_shared(fd, bytes);
    close(fd);
    if (!m) RETURN(R_INVALID_HANDLE);
    uint64_t base;
    int r = place_alloc(h.size, current_, NULL, &base);
    if (r) {
        munmap(m, bytes);
        RETURN(r);
    }
    Allocation *a = find_alloc(base, 0);
    free(a->host);
    a->host = m;
    a->mappedBytes = bytes;
    a->opened = 1;
    memcpy(a->shmPath, h.path, sizeof a->shmPath);
    *pdptr = base;
    f_hex(&E, "dptr", base);
    RETURN(R_SUCCESS);
}

/* At unload (process exit): remove the files of allocations this process exported and never freed
   (other processes keep their mappings; nothing else would remove the files before a reboot). */
__attribute__((destructor)) static void remove_exported_files(void) {
    for (size_t i = 0; i < S.allocs.n; i++)
        if (S.allocs.v[i].exported) unlink(S.allocs.v[i].shmPath);
}

EXPORT CUresult CUDAAPI cuIpcCloseMemHandle(CUdeviceptr dptr) {
    BEGIN("cuIpcCloseMemHandle");
    f_hex(&E, "dptr", dptr);
    REQUIRE_CTX();
    flush_all();
    Allocation *a = find_alloc(dptr, 0);
    if (!a || a->base != dptr || !a->opened) RETURN(R_INVALID_VALUE);
    release_host(a);
    VEC_REMOVE(S.allocs, (size_t)(a - S.allocs.v));
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
    BEGIN("cuMemsetD8_v2");
    f_hex(&E, "dst", dstDevice);
    f_uint(&E, "value", uc);
    f_uint(&E, "count", N);
    REQUIRE_CTX();
    if (N == 0) RETURN(R_SUCCESS);
    Allocation *a = find_alloc(dstDevice, N);
    if (!a) RETURN(R_INVALID_VALUE);
    flush_all();
    memset(a->host + (dstDevice - a->base), uc, N);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) {
    BEGIN("cuMemHostAlloc");
    f_uint(&E, "bytes", bytesize);
    f_uint(&E, "flags", Flags);
    REQUIRE_CTX();
    if (!pp || bytesize == 0 || (Flags & ~0x7u)) RETURN(R_INVALID_VALUE);
    /* Whole pages of their own (zero-filled), so that freeing can poison them (see poison_pinned). */
    void *p = mmap(NULL, pinned_span(bytesize), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) RETURN(R_OUT_OF_MEMORY);
    memset(p, FRESH_MEMORY_BYTE, bytesize); /* the driver does not zero it either */
    Pinned pin = {p, bytesize, Flags, current_};
    VEC_PUSH(S.pinned, pin);
    *pp = p;
    f_ptr(&E, "host", p);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuMemFreeHost(void *p) {
    BEGIN("cuMemFreeHost");
    f_ptr(&E, "host", p);
    REQUIRE_INIT();
    if (!context_current()) RETURN(R_INVALID_CONTEXT);
    for (size_t i = 0; i < S.pinned.n; i++)
        if (S.pinned.v[i].p == p) {
            /* cuMemFreeHost does not wait for copies still queued to or from the memory: on a GPU
               that DMA would hit freed memory. The double drops them and reports how many. */
            int pendingDma = 0;
            uintptr_t b = (uintptr_t)p;
            for (size_t k = 0; k < S.pending.n; k++) {
                Op *op = &S.pending.v[k];
                uintptr_t h = (uintptr_t)op->host;
                if ((op->kind == OP_HTOD || op->kind == OP_DTOH) && h >= b && h - b < S.pinned.v[i].size) {
                    op->kind = OP_EVENT; /* becomes a no-op */
                    op->event = NULL;
                    pendingDma++;
                }
            }
            f_int(&E, "pendingDma", pendingDma);
            poison_pinned(&S.pinned.v[i]);
            VEC_REMOVE(S.pinned, i);
            RETURN(R_SUCCESS);
        }
    RETURN(R_INVALID_VALUE);
}

/* cuMemHostRegister: page-locks the program's memory in place. The double records the range (copies
   from and to it count as pinned) and refuses overlaps, as the driver does. */
EXPORT CUresult CUDAAPI cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags) {
    BEGIN("cuMemHostRegister_v2");
    f_ptr(&E, "host", p);
    f_uint(&E, "bytes", bytesize);
    f_uint(&E, "flags", Flags);
    REQUIRE_CTX();
    if (!p || bytesize == 0 || (Flags & ~0xfu)) RETURN(R_INVALID_VALUE);
    uintptr_t b = (uintptr_t)p;
    for (size_t i = 0; i < S.registered.n; i++) {
        uintptr_t o = (uintptr_t)S.registered.v[i].p;
        if (b < o + S.registered.v[i].size && o < b + bytesize) RETURN(712); /* CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED */
    }
    Pinned r = {(unsigned char *)p, bytesize, Flags, current_};
    VEC_PUSH(S.registered, r);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuMemHostUnregister(void *p) {
    BEGIN("cuMemHostUnregister");
    f_ptr(&E, "host", p);
    REQUIRE_CTX();
    for (size_t i = 0; i < S.registered.n; i++)
        if (S.registered.v[i].p == p) {
            VEC_REMOVE(S.registered, i);
            RETURN(R_SUCCESS);
        }
    RETURN(713); /* CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED */
}

/* The device address of mapped host memory (cuMemHostAlloc with DEVICEMAP, or registered with
   DEVICEMAP). With unified addressing (every 64-bit platform CUDA supports) it is the host address. */
EXPORT CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags) {
    BEGIN("cuMemHostGetDevicePointer_v2");
    f_ptr(&E, "host", p);
    REQUIRE_CTX();
    if (!pdptr || Flags != 0) RETURN(R_INVALID_VALUE);
    uintptr_t x = (uintptr_t)p;
    for (size_t i = 0; i < S.pinned.n; i++) {
        uintptr_t b = (uintptr_t)S.pinned.v[i].p;
        if (x >= b && x - b < S.pinned.v[i].size && (S.pinned.v[i].flags & 0x2u)) {
            *pdptr = (CUdeviceptr)x;
            f_hex(&E, "dptr", (uint64_t)x);
            RETURN(R_SUCCESS);
        }
    }
    RETURN(R_INVALID_VALUE); /* not mapped: allocated without CU_MEMHOSTALLOC_DEVICEMAP */
}

/* Unified memory: one address for the host and every device. The double backs it with host memory
   whose address is the allocation's base, so the host can read it as the program does on a GPU. */
EXPORT CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags) {
    BEGIN("cuMemAllocManaged");
    f_uint(&E, "bytes", bytesize);
    f_uint(&E, "flags", flags);
    REQUIRE_CTX();
    if (!dptr || bytesize == 0 || (flags != 0x1u && flags != 0x2u)) RETURN(R_INVALID_VALUE);
    Device *d = &S.devices[current_->device];
    unsigned long long live = 0;
    for (size_t i = 0; i < S.allocs.n; i++) live += S.allocs.v[i].size;
    if (bytesize > d->totalMem - live) RETURN(R_OUT_OF_MEMORY);
    unsigned char *host = malloc(bytesize);
    if (!host) RETURN(R_OUT_OF_MEMORY);
    memset(host, FRESH_MEMORY_BYTE, bytesize); /* undefined contents, as cuMemAlloc's */
    Allocation a = {.base = (uint64_t)(uintptr_t)host, .size = bytesize, .host = host, .ctx = current_, .module = NULL};
    size_t at = 0;
    while (at < S.allocs.n && S.allocs.v[at].base < a.base) at++;
    VEC_PUSH(S.allocs, a); /* keep S.allocs sorted by base */
    memmove(&S.allocs.v[at + 1], &S.allocs.v[at], (S.allocs.n - 1 - at) * sizeof a);
    S.allocs.v[at] = a;
    *dptr = a.base;
    f_hex(&E, "dptr", a.base);
    RETURN(R_SUCCESS);
}

static void write_log_option(void *buffer, void **sizeSlot, const char *text) {
    if (!buffer || !sizeSlot) return;
    size_t cap = (size_t)(uintptr_t)*sizeSlot;
    if (cap == 0) return;
    size_t n = strlen(text);
    if (n > cap - 1) n = cap - 1;
    memcpy(buffer, text, n);
    ((char *)buffer)[n] = 0;
    *sizeSlot = (void *)(uintptr_t)(n + 1);
}

EXPORT CUresult CUDAAPI cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions, CUjit_option *options,
                                           void **optionValues) {
    BEGIN("cuModuleLoadDataEx");
    REQUIRE_CTX();
    if (!module || !image || (numOptions && (!options || !optionValues))) RETURN(R_INVALID_VALUE);
    const char *text = image;
    if (memcmp(text, "\x7f" "ELF", 4) == 0) {
        f_bool(&E, "cubin", 1);
        RETURN(R_INVALID_IMAGE); /* the double understands PTX text only */
    }
    f_str(&E, "ptx", text);
    f_uint(&E, "ptxBytes", strlen(text) + 1);
    void *infoBuf = NULL, *errorBuf = NULL;
    void **infoSize = NULL, **errorSize = NULL, **wallTime = NULL;
    int verbose = 0, jitMaxRegisters = 0;
    text_add(&E.t, ",\"options\":{", 12);
    for (unsigned i = 0; i < numOptions; i++) {
        int o = (int)options[i];
        if (o < 0 || o > J_MAX_OPTION) RETURN(R_INVALID_VALUE);
        int isPointer = o == J_INFO_LOG_BUFFER || o == J_ERROR_LOG_BUFFER;
        text_printf(&E.t, "%s\"%d\":", i ? "," : "", o);
        if (isPointer) text_add(&E.t, "\"buffer\"", 8);
        else text_printf(&E.t, "%llu", (unsigned long long)(uintptr_t)optionValues[i]);
        switch (o) {
        case J_INFO_LOG_BUFFER: infoBuf = optionValues[i]; break;
        case J_INFO_LOG_BUFFER_SIZE_BYTES: infoSize = &optionValues[i]; break;
        case J_ERROR_LOG_BUFFER: errorBuf = optionValues[i]; break;
        case J_ERROR_LOG_BUFFER_SIZE_BYTES: errorSize = &optionValues[i]; break;
        case J_WALL_TIME: wallTime = &optionValues[i]; break;
        case J_LOG_VERBOSE: verbose = (int)(uintptr_t)optionValues[i]; break;
        case J_MAX_REGISTERS: jitMaxRegisters = (int)(uintptr_t)optionValues[i]; break;
        }
    }
    text_add(&E.t, "}", 1);
    if (wallTime) {
        float ms = 0.25f;
        *wallTime = NULL;
        memcpy((void *)wallTime, &ms, sizeof ms);
    }
    if (S.jitFailResult) {
        int r = S.jitFailResult;
        write_log_option(errorBuf, errorSize, S.jitFailLog ? S.jitFailLog : "");
        write_log_option(infoBuf, infoSize, "");
        S.jitFailResult = 0;
        free(S.jitFailLog);
        S.jitFailLog = NULL;
        f_bool(&E, "scripted", 1);
        RETURN(r);
    }
    struct CUmod_st *m = calloc(1, sizeof *m);
    m->magic = MAGIC_MOD;
    m->ctx = current_;
    m->ptx = strdup(text);
    m->callsPrintf = strstr(m->ptx, "vprintf") != NULL;
    Device *d = &S.devices[current_->device];
    char *log = NULL;
    int r = parse_ptx(m, m->ptx, d->attrs[A_CC_MAJOR] * 10 + d->attrs[A_CC_MINOR], &log);
    if (r) {
        write_log_option(errorBuf, errorSize, log);
        write_log_option(infoBuf, infoSize, "");
        f_str(&E, "errorLog", log);
        free(log);
        free_module(m);
        RETURN(r);
    }
    for (int i = 0; i < m->nglobals; i++) {
        r = place_alloc(m->globals[i].size, current_, m, &m->globals[i].base);
        if (r) {
            write_log_option(errorBuf, errorSize, "");
            write_log_option(infoBuf, infoSize, "");
            free_module(m);
            RETURN(r);
        }
    }
    Text info = {0};
    text_add(&info, "", 0);
    for (int i = 0; i < m->nfuncs; i++) {
        struct CUfunc_st *f = &m->funcs[i];
        f->module = m;
        if (jitMaxRegisters > 0 && (f->maxRegisters == 0 || jitMaxRegisters < f->maxRegisters)) f->maxRegisters = jitMaxRegisters;
        f->maxDynamicShared = d->attrs[A_MAX_SHARED_PER_BLOCK] - f->staticShared;
        if (f->maxDynamicShared < 0) f->maxDynamicShared = 0;
        if (verbose)
            text_printf(&info,
                        "ptxas info    : Compiling entry function '%s' for 'sm_%d'\n"
                        "ptxas info    : Function properties for %s\n"
                        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
                        "ptxas info    : Used %d registers, %d bytes smem (CudaScript driver TEST DOUBLE)\n",
                        f->name, d->attrs[A_CC_MAJOR] * 10 + d->attrs[A_CC_MINOR], f->name, func_attr(f, F_NUM_REGS),
                        f->staticShared);
    }
    write_log_option(infoBuf, infoSize, info.p);
    write_log_option(errorBuf, errorSize, "");
    text_free(&info);
    VEC_PUSH(S.modules, m);
    *module = m;
    f_ptr(&E, "module", m);
    text_add(&E.t, ",\"functions\":[", 14);
    for (int i = 0; i < m->nfuncs; i++) {
        text_add(&E.t, i ? "," : "", i ? 1 : 0);
        text_json_string(&E.t, m->funcs[i].name, strlen(m->funcs[i].name));
    }
    text_add(&E.t, "]", 1);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
    BEGIN("cuModuleGetFunction");
    f_ptr(&E, "module", hmod);
    f_str(&E, "name", name);
    REQUIRE_CTX();
    if (!hfunc || !name) RETURN(R_INVALID_VALUE);
    if (!module_valid(hmod)) RETURN(R_INVALID_HANDLE);
    for (int i = 0; i < hmod->nfuncs; i++)
        if (strcmp(hmod->funcs[i].name, name) == 0) {
            *hfunc = &hmod->funcs[i];
            f_ptr(&E, "function", *hfunc);
            RETURN(R_SUCCESS);
        }
    RETURN(R_NOT_FOUND);
}

/* The address and size of a module-scope variable; either output may be NULL (cuda.h). */
EXPORT CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name) {
    BEGIN("cuModuleGetGlobal_v2");
    f_ptr(&E, "module", hmod);
    if (name) f_str(&E, "name", name);
    REQUIRE_CTX();
    if (!name) RETURN(R_INVALID_VALUE);
    if (!module_valid(hmod)) RETURN(R_INVALID_HANDLE);
    for (int i = 0; i < hmod->nglobals; i++)
        if (strcmp(hmod->globals[i].name, name) == 0) {
            if (dptr) *dptr = hmod->globals[i].base;
            if (bytes) *bytes = hmod->globals[i].size;
            f_hex(&E, "dptr", hmod->globals[i].base);
            f_uint(&E, "bytes", hmod->globals[i].size);
            RETURN(R_SUCCESS);
        }
    RETURN(R_NOT_FOUND);
}

EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
    BEGIN("cuModuleUnload");
    f_ptr(&E, "module", hmod);
    REQUIRE_CTX();
    for (size_t i = 0; i < S.modules.n; i++)
        if (S.modules.v[i] == hmod) {
            flush_all();
            free_module(hmod);
            VEC_REMOVE(S.modules, i);
            RETURN(R_SUCCESS);
        }
    RETURN(R_INVALID_HANDLE);
}

static int take_kernel_fault(const char *name, int *atNextCall) {
    for (size_t i = 0; i < S.failKernel.n; i++)
        if (strcmp(S.failKernel.v[i].name, name) == 0) {
            int r = S.failKernel.v[i].result;
            *atNextCall = S.failKernel.v[i].atNextCall;
            free(S.failKernel.v[i].name);
            VEC_REMOVE(S.failKernel, i);
            return r;
        }
    return 0;
}

/* A simplified occupancy formula (no allocation granularities beyond 256 registers per warp): blocks of
   `blockSize` threads one SM holds at once. cuOccupancyMaxActiveBlocksPerMultiprocessor answers it, and
   cuLaunchCooperativeKernel refuses grids over it × the SM count (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE).
   Like the driver's calculator (cuda_occupancy.h), more dynamic shared memory than the kernel's
   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (48 KiB minus static until cuFuncSetAttribute opts it in
   to more) fits no block: 0. */
static int occupancy_blocks(CUfunction func, int blockSize, size_t dynamicSMemSize) {
    int *a = S.devices[func->module->ctx->device].attrs;
    int blocks = 0;
    if (blockSize <= func_attr(func, F_MAX_THREADS_PER_BLOCK) && dynamicSMemSize <= (size_t)func->maxDynamicShared) {
        int warps = (blockSize + a[A_WARP_SIZE] - 1) / a[A_WARP_SIZE];
        int byWarps = a[A_MAX_THREADS_PER_MULTIPROCESSOR] / a[A_WARP_SIZE] / warps;
        int regsPerWarp = (func_attr(func, F_NUM_REGS) * a[A_WARP_SIZE] + 255) / 256 * 256;
        int byRegs = regsPerWarp ? a[A_MAX_REGISTERS_PER_MULTIPROCESSOR] / (regsPerWarp * warps) : byWarps;
        size_t smem = (size_t)func->staticShared + dynamicSMemSize;
        int bySmem = a[A_MAX_BLOCKS_PER_MULTIPROCESSOR];
        if (smem > 0) {
            size_t perBlock = (smem + 127) / 128 * 128 + (size_t)a[A_RESERVED_SHARED_PER_BLOCK];
            bySmem = (int)((size_t)a[A_MAX_SHARED_PER_MULTIPROCESSOR] / perBlock);
        }
        blocks = a[A_MAX_BLOCKS_PER_MULTIPROCESSOR];
        if (byWarps < blocks) blocks = byWarps;
        if (byRegs < blocks) blocks = byRegs;
        if (bySmem < blocks) blocks = bySmem;
    }
    return blocks;
}

/* cuLaunchKernel, and cuLaunchCooperativeKernel (`cooperative`): the latter also needs the device's
   CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH (else CUDA_ERROR_NOT_SUPPORTED) and a grid no larger than the
   blocks that can be resident at once (occupancy × SMs, else CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE). */
static CUresult launch_kernel(const char *name, int cooperative, CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                              unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                              unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra) {
    BEGIN(name);
    REQUIRE_CTX();
    if (!function_valid(f)) RETURN(R_INVALID_HANDLE);
    f_str(&E, "function", f->name);
    f_ptr(&E, "module", f->module);
    text_printf(&E.t, ",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u]", gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
                blockDimZ);
    f_uint(&E, "sharedMem", sharedMemBytes);
    f_ptr(&E, "stream", hStream);
    if (f->module->ctx != current_) RETURN(R_INVALID_CONTEXT);
    if (!stream_valid(hStream)) RETURN(R_INVALID_HANDLE);
    if (extra) RETURN(R_NOT_SUPPORTED); /* the double takes kernelParams only */
    Device *d = &S.devices[current_->device];
    int *a = d->attrs;
    if (!gridDimX || !gridDimY || !gridDimZ || !blockDimX || !blockDimY || !blockDimZ) RETURN(R_INVALID_VALUE);
    if (gridDimX > (unsigned)a[A_MAX_GRID_DIM_X] || gridDimY > (unsigned)a[A_MAX_GRID_DIM_Y] || gridDimZ > (unsigned)a[A_MAX_GRID_DIM_Z])
        RETURN(R_INVALID_VALUE);
    if (blockDimX > (unsigned)a[A_MAX_BLOCK_DIM_X] || blockDimY > (unsigned)a[A_MAX_BLOCK_DIM_Y] ||
        blockDimZ > (unsigned)a[A_MAX_BLOCK_DIM_Z])
        RETURN(R_INVALID_VALUE);
    unsigned long long threads = (unsigned long long)blockDimX * blockDimY * blockDimZ;
    if (threads > (unsigned long long)func_attr(f, F_MAX_THREADS_PER_BLOCK)) RETURN(R_INVALID_VALUE);
    if ((int)sharedMemBytes > f->maxDynamicShared) RETURN(R_INVALID_VALUE);
    if (cooperative) {
        if (!a[A_COOPERATIVE_LAUNCH]) RETURN(R_NOT_SUPPORTED);
        unsigned long long limit = (unsigned long long)occupancy_blocks(f, (int)threads, sharedMemBytes) * (unsigned long long)a[A_MULTIPROCESSOR_COUNT];
        f_uint(&E, "coResidentLimit", limit);
        if ((unsigned long long)gridDimX * gridDimY * gridDimZ > limit) RETURN(720); /* CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE */
    }
    if (f->nparams > 0 && !kernelParams) RETURN(R_INVALID_VALUE);
    text_add(&E.t, ",\"params\":[", 11);
    for (int i = 0; !E.t.off && i < f->nparams; i++) {
        const unsigned char *p = kernelParams[i];
        text_add(&E.t, i ? ",\"" : "\"", i ? 2 : 1);
        /* Hex by hand: a vsnprintf per byte was most of the double's launch time for kernels with array
           parameters (16 parameters: 6.8 µs per launch, 3.8 µs without it), which bench/launch.mjs
           --double showed as host-side launch cost. */
        static const char digits[] = "0123456789abcdef";
        char hex[2];
        for (size_t k = 0; k < f->paramSize[i]; k++) {
            hex[0] = digits[p[k] >> 4];
            hex[1] = digits[p[k] & 15];
            text_add(&E.t, hex, 2);
        }
        text_add(&E.t, "\"", 1);
    }
    text_add(&E.t, "]", 1);
    int atNextCall = 0;
    int fault = take_kernel_fault(f->name, &atNextCall);
    if (fault) f_int(&E, "fault", fault);
    Op op = {OP_LAUNCH, E.seq, hStream, current_, 0, NULL, NULL, 0, NULL, atNextCall ? 0 : fault, NULL, 0, 0};
    if (f->module->callsPrintf) current_->printfLaunched = 1;
    for (size_t i = 0; i < S.printfScripts.n; i++)
        if (strcmp(S.printfScripts.v[i].name, f->name) == 0) op.printfText = strdup(S.printfScripts.v[i].text);
    for (size_t i = 0; i < S.globalAddScripts.n; i++) {
        GlobalAddScript *g = &S.globalAddScripts.v[i];
        if (strcmp(g->kernel, f->name) != 0) continue;
        for (int k = 0; k < f->module->nglobals; k++)
            if (strcmp(f->module->globals[k].name, g->global) == 0 && f->module->globals[k].size >= 8) {
                op.addTo = f->module->globals[k].base;
                op.addAmount = g->amount;
            }
    }
    enqueue(op);
    /* A real GPU starts the kernel at once: it may fault before the host's next call, which then
       returns the sticky error whatever it is (a launch, a module load, an allocation...). */
    if (atNextCall && !S.sticky) S.sticky = fault;
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                       unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                       unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra) {
    return launch_kernel("cuLaunchKernel", 0, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                         hStream, kernelParams, extra);
}

EXPORT CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                                  unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                                  unsigned int sharedMemBytes, CUstream hStream, void **kernelParams) {
    return launch_kernel("cuLaunchCooperativeKernel", 1, f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                         sharedMemBytes, hStream, kernelParams, NULL);
}

EXPORT CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int Flags) {
    BEGIN("cuStreamCreate");
    f_uint(&E, "flags", Flags);
    REQUIRE_CTX();
    if (!phStream || (Flags & ~1u)) RETURN(R_INVALID_VALUE);
    struct CUstream_st *s = calloc(1, sizeof *s);
    s->magic = MAGIC_STREAM;
    s->ctx = current_;
    s->flags = Flags;
    VEC_PUSH(S.streams, s);
    *phStream = s;
    f_ptr(&E, "stream", s);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream hStream) {
    BEGIN("cuStreamSynchronize");
    f_ptr(&E, "stream", hStream);
    REQUIRE_CTX();
    if (!stream_valid(hStream)) RETURN(R_INVALID_HANDLE);
    if (hStream) flush_stream(hStream);
    else flush_all(); /* the legacy NULL stream waits for all blocking streams */
    fifo_flush(&E);
    if (S.sticky) RETURN(S.sticky);
    RETURN(R_SUCCESS);
}

/* The "GPU" makes progress while the host polls: each query of unfinished work runs the oldest
   pending operation (in issue order) and reports CUDA_ERROR_NOT_READY, so polling terminates and
   a query right after issuing work says "not yet", as it would on a busy GPU. */
static int query_until(uint64_t seq) {
    if (S.pending.n > 0 && S.pending.v[0].seq <= seq) {
        flush_until(S.pending.v[0].seq);
        return S.sticky ? S.sticky : R_NOT_READY;
    }
    return S.sticky ? S.sticky : R_SUCCESS;
}

EXPORT CUresult CUDAAPI cuStreamQuery(CUstream hStream) {
    BEGIN("cuStreamQuery");
    f_ptr(&E, "stream", hStream);
    REQUIRE_CTX();
    if (!stream_valid(hStream)) RETURN(R_INVALID_HANDLE);
    uint64_t last = 0;
    for (size_t i = 0; i < S.pending.n; i++)
        if (!hStream || S.pending.v[i].stream == hStream) last = S.pending.v[i].seq;
    RETURN(query_until(last));
}

EXPORT CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream) {
    BEGIN("cuStreamDestroy_v2");
    f_ptr(&E, "stream", hStream);
    REQUIRE_CTX();
    for (size_t i = 0; i < S.streams.n; i++)
        if (S.streams.v[i] == hStream) {
            flush_stream(hStream); /* its pending work still completes */
            hStream->magic = 0;
            free(hStream);
            VEC_REMOVE(S.streams, i);
            RETURN(R_SUCCESS);
        }
    RETURN(R_INVALID_HANDLE);
}

EXPORT CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags) {
    BEGIN("cuEventCreate");
    f_uint(&E, "flags", Flags);
    REQUIRE_CTX();
    if (!phEvent || (Flags & ~0x7u)) RETURN(R_INVALID_VALUE);
    struct CUevent_st *e = calloc(1, sizeof *e);
    e->magic = MAGIC_EVENT;
    e->ctx = current_;
    e->flags = Flags;
    VEC_PUSH(S.events, e);
    *phEvent = e;
    f_ptr(&E, "event", e);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream) {
    BEGIN("cuEventRecord");
    f_ptr(&E, "event", hEvent);
    f_ptr(&E, "stream", hStream);
    REQUIRE_CTX();
    if (!event_valid(hEvent) || !stream_valid(hStream)) RETURN(R_INVALID_HANDLE);
    hEvent->recorded = 1;
    hEvent->complete = 0;
    hEvent->recordSeq = E.seq;
    Op op = {OP_EVENT, E.seq, hStream, current_, 0, NULL, NULL, 0, hEvent, 0, NULL, 0, 0};
    enqueue(op);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) {
    BEGIN("cuEventSynchronize");
    f_ptr(&E, "event", hEvent);
    REQUIRE_CTX();
    if (!event_valid(hEvent)) RETURN(R_INVALID_HANDLE);
    if (hEvent->recorded && !hEvent->complete) flush_until(hEvent->recordSeq);
    fifo_flush(&E);
    if (S.sticky) RETURN(S.sticky);
    RETURN(R_SUCCESS);
}

/* cuda.h lists no CUDA_ERROR_INVALID_CONTEXT for cuEventQuery: it needs no current context. A
   never-recorded event has nothing to wait for and reports CUDA_SUCCESS. */
EXPORT CUresult CUDAAPI cuEventQuery(CUevent hEvent) {
    BEGIN("cuEventQuery");
    f_ptr(&E, "event", hEvent);
    REQUIRE_HEALTHY();
    if (!event_valid(hEvent)) RETURN(R_INVALID_HANDLE);
    if (!hEvent->recorded || hEvent->complete) RETURN(R_SUCCESS);
    RETURN(query_until(hEvent->recordSeq));
}

static int elapsed(Entry *e, float *pMilliseconds, CUevent hStart, CUevent hEnd) {
    f_ptr(e, "start", hStart);
    f_ptr(e, "end", hEnd);
    if (!S.initialized) return R_NOT_INITIALIZED;
    if (!context_current()) return R_INVALID_CONTEXT;
    if (S.sticky) return S.sticky;
    if (!pMilliseconds) return R_INVALID_VALUE;
    if (!event_valid(hStart) || !event_valid(hEnd)) return R_INVALID_HANDLE;
    if ((hStart->flags | hEnd->flags) & EVENT_DISABLE_TIMING) return R_INVALID_HANDLE;
    if (!hStart->recorded || !hEnd->recorded) return R_INVALID_HANDLE;
    if (!hStart->complete || !hEnd->complete) return R_NOT_READY;
    *pMilliseconds = (float)(hEnd->timeMs - hStart->timeMs);
    f_double(e, "ms", *pMilliseconds);
    return R_SUCCESS;
}

#ifndef CUDASCRIPT_DOUBLE_OLD_DRIVER
EXPORT CUresult CUDAAPI cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
    BEGIN("cuEventElapsedTime_v2");
    RETURN(elapsed(&E, pMilliseconds, hStart, hEnd));
}
#endif

/* The pre-CUDA-12.8 symbol; a build with -DCUDASCRIPT_DOUBLE_OLD_DRIVER exports only this one. */
EXPORT CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
    BEGIN("cuEventElapsedTime");
    RETURN(elapsed(&E, pMilliseconds, hStart, hEnd));
}

EXPORT CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent) {
    BEGIN("cuEventDestroy_v2");
    f_ptr(&E, "event", hEvent);
    REQUIRE_CTX();
    for (size_t i = 0; i < S.events.n; i++)
        if (S.events.v[i] == hEvent) {
            for (size_t k = 0; k < S.pending.n; k++)
                if (S.pending.v[k].event == hEvent) S.pending.v[k].event = NULL;
            hEvent->magic = 0;
            free(hEvent);
            VEC_REMOVE(S.events, i);
            RETURN(R_SUCCESS);
        }
    RETURN(R_INVALID_HANDLE);
}

EXPORT CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
    BEGIN("cuFuncGetAttribute");
    f_int(&E, "attribute", (int)attrib);
    REQUIRE_CTX();
    if (!pi || (int)attrib < 0 || (int)attrib >= F_COUNT) RETURN(R_INVALID_VALUE);
    if (!function_valid(hfunc)) RETURN(R_INVALID_HANDLE);
    f_str(&E, "function", hfunc->name);
    *pi = func_attr(hfunc, (int)attrib);
    f_int(&E, "value", *pi);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
    BEGIN("cuFuncSetAttribute");
    f_int(&E, "attribute", (int)attrib);
    f_int(&E, "value", value);
    REQUIRE_CTX();
    if (!function_valid(hfunc)) RETURN(R_INVALID_HANDLE);
    f_str(&E, "function", hfunc->name);
    Device *d = &S.devices[hfunc->module->ctx->device];
    if ((int)attrib == F_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
        if (value < 0 || value + hfunc->staticShared > d->attrs[A_MAX_SHARED_PER_BLOCK_OPTIN]) RETURN(R_INVALID_VALUE);
        hfunc->maxDynamicShared = value;
        RETURN(R_SUCCESS);
    }
    if ((int)attrib == F_PREFERRED_SHARED_MEMORY_CARVEOUT) {
        if (value < -1 || value > 100) RETURN(R_INVALID_VALUE);
        hfunc->carveout = value;
        RETURN(R_SUCCESS);
    }
    RETURN(R_INVALID_VALUE);
}

EXPORT CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                                    size_t dynamicSMemSize) {
    BEGIN("cuOccupancyMaxActiveBlocksPerMultiprocessor");
    f_int(&E, "blockSize", blockSize);
    f_uint(&E, "dynamicSharedMem", dynamicSMemSize);
    REQUIRE_CTX();
    if (!numBlocks || blockSize <= 0) RETURN(R_INVALID_VALUE);
    if (!function_valid(func)) RETURN(R_INVALID_HANDLE);
    f_str(&E, "function", func->name);
    int blocks = occupancy_blocks(func, blockSize, dynamicSMemSize);
    *numBlocks = blocks;
    f_int(&E, "blocks", blocks);
    RETURN(R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr) {
    BEGIN("cuGetErrorName");
    E.quiet = 1;
    if (!pStr) RETURN(R_INVALID_VALUE);
    int i = error_index((int)error);
    *pStr = i < 0 ? NULL : ERRORS[i].name;
    RETURN(i < 0 ? R_INVALID_VALUE : R_SUCCESS);
}

EXPORT CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr) {
    BEGIN("cuGetErrorString");
    E.quiet = 1;
    if (!pStr) RETURN(R_INVALID_VALUE);
    int i = error_index((int)error);
    *pStr = i < 0 ? NULL : ERRORS[i].text ? ERRORS[i].text : ERRORS[i].name;
    RETURN(i < 0 ? R_INVALID_VALUE : R_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Test control API (not part of libcuda). Tests call these through koffi.                      */

/** Always 1: lets the bindings and `cudascript doctor` say that the driver is this TEST DOUBLE. */
EXPORT int cudaDouble_isTestDouble(void) { return 1; }

/** Frees every live object, forgets all scripting and the log, re-reads the environment and
    returns to "cuInit not called". Returns how many objects (allocations, pinned buffers, modules,
    streams, events, primary-context references) were still alive. */
EXPORT int cudaDouble_reset(void) {
    lock();
    int n = reclaim(NULL);
    for (int i = 0; i < MAX_DEVICES; i++) n += S.devices[i].ctx.refcount;
    for (size_t i = 0; i < S.failNext.n; i++) free(S.failNext.v[i].name);
    for (size_t i = 0; i < S.failKernel.n; i++) free(S.failKernel.v[i].name);
    for (size_t i = 0; i < S.funcOverrides.n; i++) free(S.funcOverrides.v[i].name);
    for (size_t i = 0; i < S.calls.n; i++) free(S.calls.v[i].name);
    for (size_t i = 0; i < S.printfScripts.n; i++) {
        free(S.printfScripts.v[i].name);
        free(S.printfScripts.v[i].text);
    }
    for (size_t i = 0; i < S.globalAddScripts.n; i++) {
        free(S.globalAddScripts.v[i].kernel);
        free(S.globalAddScripts.v[i].global);
    }
    S.failNext.n = S.failKernel.n = S.funcOverrides.n = S.calls.n = S.printfScripts.n = S.globalAddScripts.n = 0;
    free(S.jitFailLog);
    S.jitFailLog = NULL;
    text_free(&S.log);
    S.logEntries = 0;
    S.logOff = 0;
    S.seq = 0;
    current_ = NULL;
    configure_from_env();
    unlock();
    return n;
}

EXPORT void cudaDouble_setDeviceCount(int count) {
    lock();
    S.deviceCount = count < 0 ? 0 : count > MAX_DEVICES ? MAX_DEVICES : count;
    unlock();
}
/** The result cuInit returns from now on (0 = success; e.g. 100 = CUDA_ERROR_NO_DEVICE). */
EXPORT void cudaDouble_setInitResult(int result) {
    lock();
    S.initResult = result;
    if (result) S.initialized = 0;
    unlock();
}
EXPORT void cudaDouble_setDriverVersion(int version) {
    lock();
    S.driverVersion = version;
    unlock();
}
/** Highest PTX ISA version the "JIT" accepts, × 10 (default 90 = PTX 9.0). */
EXPORT void cudaDouble_setMaxPtxVersion(int version) {
    lock();
    S.maxPtxVersion = version;
    unlock();
}
EXPORT void cudaDouble_setDeviceName(int device, const char *name) {
    lock();
    if (device >= 0 && device < MAX_DEVICES && name) snprintf(S.devices[device].name, sizeof S.devices[device].name, "%s", name);
    unlock();
}
EXPORT void cudaDouble_setDeviceAttribute(int device, int attribute, int value) {
    lock();
    if (device >= 0 && device < MAX_DEVICES && attribute > 0 && attribute < A_COUNT) S.devices[device].attrs[attribute] = value;
    unlock();
}
EXPORT void cudaDouble_setTotalMem(int device, unsigned long long bytes) {
    lock();
    if (device >= 0 && device < MAX_DEVICES) S.devices[device].totalMem = bytes;
    unlock();
}
/** The next call to `function` (e.g. "cuMemAlloc_v2") returns `result` without doing anything. */
EXPORT void cudaDouble_failNext(const char *function, int result) {
    lock();
    add_fail_next(function, result);
    unlock();
}
/** The next cuModuleLoadDataEx fails with `result`, writing `errorLog` into the JIT error log buffer. */
EXPORT void cudaDouble_failNextJit(int result, const char *errorLog) {
    lock();
    S.jitFailResult = result;
    free(S.jitFailLog);
    S.jitFailLog = errorLog ? strdup(errorLog) : NULL;
    unlock();
}
/** Every launch of `kernel` "prints" `text` with device printf: it enters the context's printf FIFO
    when the launch executes (at a synchronization point), one line per record, dropping what does
    not fit (CU_LIMIT_PRINTF_FIFO_SIZE, 1 MiB by default), and reaches stdout at that
    synchronization — never without one, as on a GPU. */
EXPORT void cudaDouble_printfOnLaunch(const char *kernel, const char *text) {
    lock();
    PrintfScript p = {strdup(kernel), strdup(text)};
    VEC_PUSH(S.printfScripts, p);
    unlock();
}
/** Every launch of `kernel` adds `amount` to the 8-byte module-scope .global `global` of its module
    when the launch executes (at a synchronization point), as a kernel's atomicAdd would — e.g. to
    stand in for a kernel whose console.log wrote that many bytes into CudaScript's printf counter. */
EXPORT void cudaDouble_addToGlobalOnLaunch(const char *kernel, const char *global, unsigned long long amount) {
    lock();
    GlobalAddScript g = {strdup(kernel), strdup(global), amount};
    VEC_PUSH(S.globalAddScripts, g);
    unlock();
}
/** Printf bytes dropped because the FIFO of device `ordinal`'s context was full. */
EXPORT unsigned long long cudaDouble_printfDropped(int ordinal) {
    lock();
    unsigned long long n = ordinal >= 0 && ordinal < MAX_DEVICES ? S.devices[ordinal].ctx.printfDropped : 0;
    unlock();
    return n;
}
/** The next launch of `kernel` "faults" with `result` (e.g. 700 = ILLEGAL_ADDRESS) when it executes,
    i.e. at the next synchronization point; the error is sticky until the primary context is
    destroyed or the double is reset. */
EXPORT void cudaDouble_failKernel(const char *kernel, int result) {
    lock();
    Scripted s = {strdup(kernel), result};
    VEC_PUSH(S.failKernel, s);
    unlock();
}
/** Like cudaDouble_failKernel, but the kernel faults as soon as it is launched (a GPU runs it at
    once): the launch returns success and the very next call that needs a healthy context — of any
    kind: another launch, a module load, an allocation, a copy — returns `result`, sticky. */
EXPORT void cudaDouble_failKernelAtNextCall(const char *kernel, int result) {
    lock();
    Scripted s = {strdup(kernel), result, 1};
    VEC_PUSH(S.failKernel, s);
    unlock();
}
/** Makes `result` sticky now, as if a kernel had just faulted. */
EXPORT void cudaDouble_poison(int result) {
    lock();
    S.sticky = result;
    unlock();
}
/** Overrides a function attribute (CU_FUNC_ATTRIBUTE_NUM_REGS, ...) for every function named `kernel`. */
EXPORT void cudaDouble_setFunctionAttribute(const char *kernel, int attribute, int value) {
    lock();
    FuncOverride o = {strdup(kernel), attribute, value};
    VEC_PUSH(S.funcOverrides, o);
    unlock();
}
/** Virtual milliseconds each launch takes when it executes (default 1.0); event times use this clock. */
EXPORT void cudaDouble_setLaunchMillis(double ms) {
    lock();
    S.launchMs = ms;
    unlock();
}
/** How many times `function` was called since the last reset (scripted failures included). */
EXPORT long cudaDouble_callCount(const char *function) {
    lock();
    long n = 0;
    for (size_t i = 0; i < S.calls.n; i++)
        if (strcmp(S.calls.v[i].name, function) == 0) n = (long)S.calls.v[i].count;
    unlock();
    return n;
}
/* cuMemAlloc allocations only (module globals belong to their modules: cudaDouble_liveModules). */
EXPORT int cudaDouble_liveAllocations(void) {
    lock();
    int n = 0;
    for (size_t i = 0; i < S.allocs.n; i++) n += !S.allocs.v[i].module;
    unlock();
    return n;
}
EXPORT unsigned long long cudaDouble_liveAllocationBytes(void) {
    lock();
    unsigned long long n = 0;
    for (size_t i = 0; i < S.allocs.n; i++)
        if (!S.allocs.v[i].module) n += S.allocs.v[i].size;
    unlock();
    return n;
}
EXPORT int cudaDouble_livePinned(void) {
    lock();
    int n = (int)S.pinned.n;
    unlock();
    return n;
}
EXPORT int cudaDouble_liveModules(void) {
    lock();
    int n = (int)S.modules.n;
    unlock();
    return n;
}
EXPORT int cudaDouble_liveStreams(void) {
    lock();
    int n = (int)S.streams.n;
    unlock();
    return n;
}
EXPORT int cudaDouble_liveEvents(void) {
    lock();
    int n = (int)S.events.n;
    unlock();
    return n;
}
EXPORT int cudaDouble_pendingOperations(void) {
    lock();
    int n = (int)S.pending.n;
    unlock();
    return n;
}
EXPORT int cudaDouble_primaryContextRefcount(int device) {
    lock();
    int n = device >= 0 && device < MAX_DEVICES ? S.devices[device].ctx.refcount : -1;
    unlock();
    return n;
}
/** The sticky error in effect (0 = none). */
EXPORT int cudaDouble_stickyError(void) {
    lock();
    int n = S.sticky;
    unlock();
    return n;
}
/** Reads "device memory" without a driver call (and without logging): 0, or 1 when out of range. */
EXPORT int cudaDouble_readDevice(unsigned long long dptr, void *out, size_t bytes) {
    lock();
    Allocation *a = find_alloc(dptr, bytes);
    if (a && out) memcpy(out, a->host + (dptr - a->base), bytes);
    unlock();
    return a && out ? 0 : 1;
}
/** Writes "device memory" without a driver call, e.g. to play the part of a kernel's output. */
EXPORT int cudaDouble_writeDevice(unsigned long long dptr, const void *in, size_t bytes) {
    lock();
    Allocation *a = find_alloc(dptr, bytes);
    if (a && in) memcpy(a->host + (dptr - a->base), in, bytes);
    unlock();
    return a && in ? 0 : 1;
}
/** The call log as JSON lines: copies up to `capacity` bytes (NUL-terminated when room) into `out`
    and returns the full length in bytes (call with capacity 0 to size the buffer). */
EXPORT size_t cudaDouble_copyLog(char *out, size_t capacity) {
    lock();
    size_t n = S.log.len;
    if (out && capacity) {
        size_t k = n < capacity - 1 ? n : capacity - 1;
        if (k) memcpy(out, S.log.p, k);
        out[k] = 0;
    }
    unlock();
    return n;
}
EXPORT size_t cudaDouble_logEntries(void) {
    lock();
    size_t n = S.logEntries;
    unlock();
    return n;
}
/** Turns the call log off (0) or back on (1; the default, and after cudaDouble_reset). While it is
    off, calls are counted (cudaDouble_callCount) but not formatted or kept: bench/launch.mjs --double
    measures the host side of a launch without the double's own JSON formatting in it. */
EXPORT void cudaDouble_setLogging(int on) {
    lock();
    S.logOff = !on;
    unlock();
}

EXPORT void cudaDouble_clearLog(void) {
    lock();
    text_free(&S.log);
    S.logEntries = 0;
    unlock();
}
