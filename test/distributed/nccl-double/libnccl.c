/*
 * A TEST DOUBLE of NCCL's libnccl.so.2 — not NVIDIA's library: nothing runs on a GPU. It exists to
 * test CudaScript's NCCL path (runtime/src/distributed/nccl.ts) on a machine without GPUs, together
 * with the libcuda test double (test/driver-double/libcuda.c): it moves the bytes of the buffers it is
 * given with the driver API of the libcuda already loaded in the process (cuMemcpyDtoH_v2 /
 * cuMemcpyHtoD_v2 of CUDASCRIPT_LIBCUDA, found with dlopen(RTLD_NOLOAD)), as NCCL moves GPU memory.
 *
 * The ranks are processes: the unique id names a POSIX shared-memory segment that every rank maps in
 * ncclCommInitRank; a collective copies each rank's bytes into its slot, waits for all ranks (a
 * generation barrier in the segment), and each rank combines the slots in rank order. Every call is
 * appended to the file named by NCCL_DOUBLE_LOG (one line: "rank call count"), so tests can tell that
 * the NCCL path ran. Only what CudaScript calls is here; float16 is refused (ncclInvalidArgument).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct { char internal[128]; } ncclUniqueId;
typedef struct ncclComm *ncclComm_t;
typedef int ncclResult_t;
enum { ncclSuccess = 0, ncclSystemError = 2, ncclInvalidArgument = 4 };
enum { ncclInt8, ncclUint8, ncclInt32, ncclUint32, ncclInt64, ncclUint64, ncclFloat16, ncclFloat32, ncclFloat64 };
enum { ncclSum, ncclProd, ncclMax, ncclMin };

#define SLOT_BYTES (4u << 20)
#define MAX_RANKS 16

struct shared {
  volatile int arrived;
  volatile int generation;
  unsigned char slots[MAX_RANKS][SLOT_BYTES];
};

struct ncclComm {
  int rank, nranks;
  struct shared *shm;
  char name[128];
};

typedef int (*memcpy_fn)(uint64_t, const void *, size_t);
typedef int (*memcpy_back_fn)(void *, uint64_t, size_t);
static memcpy_fn htod;
static memcpy_back_fn dtoh;

static int bind_driver(void) {
  if (htod && dtoh) return 1;
  const char *path = getenv("CUDASCRIPT_LIBCUDA");
  void *h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
  if (!h) h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!h) return 0;
  htod = (memcpy_fn)dlsym(h, "cuMemcpyHtoD_v2");
  dtoh = (memcpy_back_fn)dlsym(h, "cuMemcpyDtoH_v2");
  return htod && dtoh;
}

static void note(ncclComm_t comm, const char *call, size_t count) {
  const char *path = getenv("NCCL_DOUBLE_LOG");
  if (!path) return;
  FILE *f = fopen(path, "a");
  if (!f) return;
  fprintf(f, "%d %s %zu\n", comm ? comm->rank : -1, call, count);
  fclose(f);
}

int ncclGetVersion(int *version) {
  *version = 21903;
  return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t r) {
  return r == ncclInvalidArgument ? "invalid argument (NCCL test double)" : r == ncclSystemError ? "system error (NCCL test double)" : "unhandled error (NCCL test double)";
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
  memset(id, 0, sizeof *id);
  struct timespec t;
  clock_gettime(CLOCK_REALTIME, &t);
  snprintf(id->internal, sizeof id->internal, "/cs-nccl-double-%d-%ld", (int)getpid(), (long)t.tv_nsec);
  return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *out, int nranks, ncclUniqueId id, int rank) {
  if (nranks < 1 || nranks > MAX_RANKS || rank < 0 || rank >= nranks) return ncclInvalidArgument;
  if (!bind_driver()) return ncclSystemError;
  int fd = shm_open(id.internal, O_RDWR | O_CREAT, 0600);
  if (fd < 0) return ncclSystemError;
  if (ftruncate(fd, sizeof(struct shared)) != 0) return ncclSystemError;
  struct shared *shm = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (shm == MAP_FAILED) return ncclSystemError;
  ncclComm_t comm = calloc(1, sizeof *comm);
  comm->rank = rank;
  comm->nranks = nranks;
  comm->shm = shm;
  snprintf(comm->name, sizeof comm->name, "%s", id.internal);
  *out = comm;
  note(comm, "ncclCommInitRank", (size_t)nranks);
  return ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  note(comm, "ncclCommDestroy", 0);
  munmap(comm->shm, sizeof(struct shared));
  if (comm->rank == 0) shm_unlink(comm->name);
  free(comm);
  return ncclSuccess;
}

/* Every rank waits here until all have arrived (a sense-reversing barrier on a generation count). */
static void barrier(ncclComm_t comm) {
  struct shared *s = comm->shm;
  int gen = __atomic_load_n(&s->generation, __ATOMIC_ACQUIRE);
  if (__atomic_add_fetch(&s->arrived, 1, __ATOMIC_ACQ_REL) == comm->nranks) {
    __atomic_store_n(&s->arrived, 0, __ATOMIC_RELEASE);
    __atomic_add_fetch(&s->generation, 1, __ATOMIC_ACQ_REL);
  } else {
    while (__atomic_load_n(&s->generation, __ATOMIC_ACQUIRE) == gen) sched_yield();
  }
}

static size_t width(int dtype) {
  switch (dtype) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
  }
}

#define COMBINE(T)                                                                              \
  for (size_t i = 0; i < count; i++) {                                                         \
    T a = ((T *)acc)[i], b = ((const T *)x)[i];                                                \
    ((T *)acc)[i] = op == ncclSum ? (T)(a + b) : op == ncclProd ? (T)(a * b) : op == ncclMax ? (b > a || b != b ? b : a) : (b < a || b != b ? b : a); \
  }

static void combine(void *acc, const void *x, size_t count, int dtype, int op) {
  switch (dtype) {
    case ncclInt8: COMBINE(int8_t) break;
    case ncclUint8: COMBINE(uint8_t) break;
    case ncclInt32: COMBINE(int32_t) break;
    case ncclUint32: COMBINE(uint32_t) break;
    case ncclInt64: COMBINE(int64_t) break;
    case ncclUint64: COMBINE(uint64_t) break;
    case ncclFloat32: COMBINE(float) break;
    case ncclFloat64: COMBINE(double) break;
  }
}

/* The rank-order reduction of every rank's slot into `out` (count elements starting at element `from`). */
static int reduce_slots(ncclComm_t comm, uint64_t out, size_t from, size_t count, int dtype, int op) {
  size_t w = width(dtype);
  unsigned char *tmp = malloc(count * w);
  memcpy(tmp, comm->shm->slots[0] + from * w, count * w);
  for (int r = 1; r < comm->nranks; r++) combine(tmp, comm->shm->slots[r] + from * w, count, dtype, op);
  int r = htod(out, tmp, count * w);
  free(tmp);
  return r;
}

static int check(ncclComm_t comm, size_t bytes, int dtype) {
  return comm && width(dtype) != 0 && bytes <= SLOT_BYTES;
}

ncclResult_t ncclAllReduce(uint64_t send, uint64_t recv, size_t count, int dtype, int op, ncclComm_t comm, void *stream) {
  (void)stream;
  if (!check(comm, count * width(dtype), dtype)) return ncclInvalidArgument;
  note(comm, "ncclAllReduce", count);
  if (dtoh(comm->shm->slots[comm->rank], send, count * width(dtype))) return ncclSystemError;
  barrier(comm);
  int r = reduce_slots(comm, recv, 0, count, dtype, op);
  barrier(comm);
  return r ? ncclSystemError : ncclSuccess;
}

ncclResult_t ncclBroadcast(uint64_t send, uint64_t recv, size_t count, int dtype, int root, ncclComm_t comm, void *stream) {
  (void)stream;
  if (!check(comm, count * width(dtype), dtype) || root < 0 || root >= comm->nranks) return ncclInvalidArgument;
  note(comm, "ncclBroadcast", count);
  if (comm->rank == root && dtoh(comm->shm->slots[root], send, count * width(dtype))) return ncclSystemError;
  barrier(comm);
  int r = htod(recv, comm->shm->slots[root], count * width(dtype));
  barrier(comm);
  return r ? ncclSystemError : ncclSuccess;
}

ncclResult_t ncclAllGather(uint64_t send, uint64_t recv, size_t count, int dtype, ncclComm_t comm, void *stream) {
  (void)stream;
  size_t bytes = count * width(dtype);
  if (!check(comm, bytes, dtype)) return ncclInvalidArgument;
  note(comm, "ncclAllGather", count);
  if (dtoh(comm->shm->slots[comm->rank], send, bytes)) return ncclSystemError;
  barrier(comm);
  int failed = 0;
  for (int r = 0; r < comm->nranks; r++) failed |= htod(recv + r * bytes, comm->shm->slots[r], bytes);
  barrier(comm);
  return failed ? ncclSystemError : ncclSuccess;
}

ncclResult_t ncclReduceScatter(uint64_t send, uint64_t recv, size_t recvcount, int dtype, int op, ncclComm_t comm, void *stream) {
  (void)stream;
  if (!check(comm, recvcount * comm->nranks * width(dtype), dtype)) return ncclInvalidArgument;
  note(comm, "ncclReduceScatter", recvcount);
  if (dtoh(comm->shm->slots[comm->rank], send, recvcount * comm->nranks * width(dtype))) return ncclSystemError;
  barrier(comm);
  int r = reduce_slots(comm, recv, (size_t)comm->rank * recvcount, recvcount, dtype, op);
  barrier(comm);
  return r ? ncclSystemError : ncclSuccess;
}
