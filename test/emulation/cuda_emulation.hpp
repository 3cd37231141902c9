// CPU emulation of the CUDA C++ subset that CudaScript generates, so that generated kernels compile
// with `g++ -std=c++20 -pthread` and can be checked against the TypeScript references without a GPU.
//
//  - The threads of a block are real std::threads; blocks run one after another, each thread looping
//    over the blocks, so `__shared__` can simply be `static` (one copy, reused by the next block).
//  - __syncthreads (and its _count/_and/_or forms) is a std::barrier per block; a thread that returns
//    from the kernel drops out of it (exited threads do not take part in later barriers, as on the GPU).
//  - Warps are groups of 32 consecutive linear thread ids; shuffles and votes exchange values through
//    a per-warp slot array between two phases of a per-warp std::barrier.
//  - Atomics are std::atomic_ref operations; __threadfence* are sequentially consistent fences.
//  - printf is printf; __constant__ data is a plain global.
//
// Not emulated: the GPU's weak memory ordering, warp divergence/independent scheduling subtleties,
// partial-mask warp operations (every existing lane of a warp must reach each warp operation, as the
// corpus kernels do: a divergent branch with its own mask works when each branch makes the same calls), and
// fast math. FMA contraction is replayed by the build flags (harness.ts: -ffp-contract=off like the
// GPU's default --fmad=false, -ffp-contract=fast -mfma where a kernel opts in).
#pragma once
#define CUDASCRIPT_EMULATION 1

#include <math.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __shared__ static
#define __constant__
#define __align__(n) alignas(n)
#define __launch_bounds__(...)

struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

inline thread_local uint3 threadIdx;
inline thread_local uint3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;
constexpr int warpSize = 32;

// Dynamic shared memory of the current launch (the GPU build declares `extern __shared__` instead).
inline unsigned char* cs_dynamic_smem = nullptr;
inline unsigned cs_dynamic_smem_bytes = 0;
inline unsigned cs_dynamic_smem_size() { return cs_dynamic_smem_bytes; }

// f16: the GPU build's cs_half (compiler/src/cuda/fp16.ts) runs half instructions; here it is g++'s
// _Float16. Each operator computes in float and rounds once to _Float16 on return, which gives the
// correctly rounded f16 result for + - * / (float has more than 2 × 11 + 2 bits), as the GPU's
// add/sub/mul.rn.f16 and the simulator's f16round(a op b) do. Each operator is a function so that g++'s
// excess precision for _Float16 never spans two operations.
struct cs_half {
  _Float16 v;
  cs_half() = default;
  explicit cs_half(float f) : v((_Float16)f) {}
  explicit cs_half(double d) : v((_Float16)d) {}
  explicit cs_half(int i) : v((_Float16)i) {}
  explicit cs_half(unsigned i) : v((_Float16)i) {}
  explicit cs_half(short i) : v((_Float16)i) {}
  explicit cs_half(unsigned short i) : v((_Float16)i) {}
  explicit cs_half(signed char i) : v((_Float16)i) {}
  explicit cs_half(unsigned char i) : v((_Float16)i) {}
  explicit cs_half(bool b) : v(b ? (_Float16)1 : (_Float16)0) {}
  operator float() const { return (float)v; }
  operator double() const { return (double)v; }
  operator int() const { return (int)(float)v; }
  operator unsigned() const { return (unsigned)(float)v; }
  operator short() const { return (short)(float)v; }
  operator unsigned short() const { return (unsigned short)(float)v; }
  operator signed char() const { return (signed char)(float)v; }
  operator unsigned char() const { return (unsigned char)(float)v; }
};
static_assert(sizeof(cs_half) == 2, "f16 elements are 2 bytes, as on the GPU");
inline cs_half operator+(cs_half a, cs_half b) { return cs_half((float)a.v + (float)b.v); }
inline cs_half operator-(cs_half a, cs_half b) { return cs_half((float)a.v - (float)b.v); }
inline cs_half operator*(cs_half a, cs_half b) { return cs_half((float)a.v * (float)b.v); }
inline cs_half operator/(cs_half a, cs_half b) { return cs_half((float)a.v / (float)b.v); }
inline cs_half operator-(cs_half a) { cs_half r; r.v = -a.v; return r; }
inline cs_half& operator+=(cs_half& a, cs_half b) { return a = a + b; }
inline cs_half& operator-=(cs_half& a, cs_half b) { return a = a - b; }
inline cs_half& operator*=(cs_half& a, cs_half b) { return a = a * b; }
inline cs_half& operator/=(cs_half& a, cs_half b) { return a = a / b; }
inline bool operator==(cs_half a, cs_half b) { return (float)a.v == (float)b.v; }
inline bool operator!=(cs_half a, cs_half b) { return (float)a.v != (float)b.v; }
inline bool operator<(cs_half a, cs_half b) { return (float)a.v < (float)b.v; }
inline bool operator<=(cs_half a, cs_half b) { return (float)a.v <= (float)b.v; }
inline bool operator>(cs_half a, cs_half b) { return (float)a.v > (float)b.v; }
inline bool operator>=(cs_half a, cs_half b) { return (float)a.v >= (float)b.v; }
// fma.rn.f16 as the simulator computes it: the double fma rounded to f16 (a*b is exact in double).
inline unsigned cs_half_bits(cs_half h) {
  unsigned short b;
  std::memcpy(&b, &h, 2);
  return b;
}
inline cs_half cs_half_from_bits(unsigned b) {
  const unsigned short s = (unsigned short)b;
  cs_half h;
  std::memcpy(&h, &s, 2);
  return h;
}
inline cs_half cs_hfma(cs_half a, cs_half b, cs_half c) { return cs_half(fma((double)a.v, (double)b.v, (double)c.v)); }
inline cs_half cs_habs(cs_half a) { return cs_half(fabsf((float)a.v)); }
// atomicAdd on f16 (the GPU's atom.add.noftz.f16): a compare-and-swap loop, each sum rounded to f16.
inline cs_half atomicAdd(cs_half* a, cs_half v) {
  std::atomic_ref<cs_half> r(*a);
  cs_half old = r.load();
  while (!r.compare_exchange_weak(old, old + v)) {
  }
  return old;
}

namespace cs_emu {
/** Thrown by cs_emu_exit_thread: the thread ends its kernel body (PTX exit). */
struct ThreadExit {};

struct Warp {
  std::barrier<> bar;
  std::atomic<unsigned> live;
  unsigned long long slot[32] = {};
  Warp(int n, unsigned mask) : bar(n), live(mask) {}
};

struct Block;
struct SyncDone {
  Block* block;
  void operator()() noexcept;
};

struct Block {
  std::atomic<int> arrived{0};
  std::atomic<int> count{0};
  int lastArrived = 0;
  int lastCount = 0;
  std::barrier<SyncDone> bar;
  std::vector<std::unique_ptr<Warp>> warps;
  explicit Block(int n) : bar(n, SyncDone{this}) {
    for (int w = 0; w * 32 < n; w++) {
      const int lanes = std::min(32, n - w * 32);
      const unsigned mask = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u);
      warps.push_back(std::make_unique<Warp>(lanes, mask));
    }
  }
};

// Runs once per barrier phase, after every live thread arrived and before any is released, so a
// thread reading lastCount after its wait cannot race with the next phase's completion.
inline void SyncDone::operator()() noexcept {
  block->lastArrived = block->arrived.exchange(0);
  block->lastCount = block->count.exchange(0);
}

inline thread_local Block* tl_block = nullptr;
inline thread_local int tl_tid = 0;

inline Warp& warp() { return *tl_block->warps[tl_tid / 32]; }

template <class T>
inline unsigned long long to_bits(T v) {
  unsigned long long b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
inline T from_bits(unsigned long long b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

// Every lane publishes `v`, then reads lane `src`, or keeps its own value when src is -1 or a lane that
// does not exist or has exited (undefined in CUDA; the simulator's rule, docs/simulator.md).
template <class T>
inline T exchange(T v, int src) {
  Warp& w = warp();
  const int lane = tl_tid & 31;
  w.slot[lane] = to_bits(v);
  w.bar.arrive_and_wait();
  const bool present = src >= 0 && (w.live.load() >> src & 1u);
  const unsigned long long got = present ? w.slot[src] : w.slot[lane];
  w.bar.arrive_and_wait();
  return from_bits<T>(got);
}

inline unsigned ballot(bool p) {
  Warp& w = warp();
  const int lane = tl_tid & 31;
  w.slot[lane] = p ? 1 : 0;
  w.bar.arrive_and_wait();
  const unsigned live = w.live.load();
  unsigned mask = 0;
  for (int l = 0; l < 32; l++)
    if ((live >> l & 1u) && w.slot[l]) mask |= 1u << l;
  w.bar.arrive_and_wait();
  return mask;
}

// Every lane publishes the bits of `v`; returns the lanes of `mask` (among the live ones) whose bits
// equal this lane's, as __match_any_sync compares them.
template <class T>
inline unsigned match(unsigned mask, T v) {
  Warp& w = warp();
  const int lane = tl_tid & 31;
  const unsigned long long mine = to_bits(v);
  w.slot[lane] = mine;
  w.bar.arrive_and_wait();
  const unsigned peers = mask & w.live.load();
  unsigned same = 0;
  for (int l = 0; l < 32; l++)
    if ((peers >> l & 1u) && w.slot[l] == mine) same |= 1u << l;
  w.bar.arrive_and_wait();
  return same;
}

inline int block_vote(bool p, int what) {
  Block* b = tl_block;
  b->arrived.fetch_add(1);
  if (p) b->count.fetch_add(1);
  b->bar.arrive_and_wait();
  if (what == 0) return b->lastCount;
  if (what == 1) return b->lastCount == b->lastArrived ? 1 : 0;
  return b->lastCount > 0 ? 1 : 0;
}

// One kernel launch: blockDim.x*y*z threads, each running the blocks in order.
template <class F>
inline void launch(dim3 grid, dim3 block, unsigned sharedBytes, F body) {
  gridDim = grid;
  blockDim = block;
  const int n = (int)(block.x * block.y * block.z);
  const long blocks = (long)grid.x * grid.y * grid.z;
  std::vector<unsigned char> smem(sharedBytes + 16);
  cs_dynamic_smem = smem.data() + ((16 - (reinterpret_cast<std::uintptr_t>(smem.data()) & 15)) & 15);
  cs_dynamic_smem_bytes = sharedBytes;
  std::unique_ptr<Block> current = std::make_unique<Block>(n);
  auto nextBlock = [&]() noexcept { current = std::make_unique<Block>(n); };
  std::barrier<decltype(nextBlock)> blockEnd(n, nextBlock);
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (int t = 0; t < n; t++) {
    threads.emplace_back([&, t] {
      tl_tid = t;
      threadIdx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
      for (long b = 0; b < blocks; b++) {
        blockIdx = uint3{(unsigned)(b % grid.x), (unsigned)((b / grid.x) % grid.y), (unsigned)(b / ((long)grid.x * grid.y))};
        tl_block = current.get();
        // A thread that raises (cs_raise_exit) leaves the body by this exception, as PTX exit leaves the kernel.
        try {
          body();
        } catch (const ThreadExit&) {
        }
        // This thread has exited the kernel: it no longer takes part in barriers or warp exchanges.
        Warp& w = warp();
        w.live.fetch_and(~(1u << (t & 31)));
        w.bar.arrive_and_drop();
        tl_block->bar.arrive_and_drop();
        blockEnd.arrive_and_wait();
      }
    });
  }
  for (auto& th : threads) th.join();
  cs_dynamic_smem = nullptr;
  cs_dynamic_smem_bytes = 0;
}

// The grid barrier's workspace of a cooperative launch (the kernel's hidden last parameter, ABI: two
// u32 zeroed before the launch).
inline unsigned int grid_ws[2];

// A cooperative launch (a kernel that calls g.sync()): every thread of every block is its own
// std::thread, all at once, so the generated cs_grid_sync (atomics on grid_ws) synchronises them as a
// GPU's resident blocks. Static __shared__ arrays are one instance here (`static`), so kernels with
// shared memory are not emulated this way (docs/kernel-language.md#grid-synchronisation).
template <class F>
inline void launch_cooperative(dim3 grid, dim3 block, unsigned sharedBytes, F body) {
  gridDim = grid;
  blockDim = block;
  const int n = (int)(block.x * block.y * block.z);
  const long blocks = (long)grid.x * grid.y * grid.z;
  cs_dynamic_smem = nullptr;
  cs_dynamic_smem_bytes = sharedBytes;
  grid_ws[0] = grid_ws[1] = 0;
  std::vector<std::unique_ptr<Block>> all;
  for (long b = 0; b < blocks; b++) all.push_back(std::make_unique<Block>(n));
  std::vector<std::thread> threads;
  threads.reserve((size_t)(blocks * n));
  for (long b = 0; b < blocks; b++) {
    for (int t = 0; t < n; t++) {
      threads.emplace_back([&, b, t] {
        tl_tid = t;
        tl_block = all[(size_t)b].get();
        threadIdx = uint3{t % block.x, (t / block.x) % block.y, t / (block.x * block.y)};
        blockIdx = uint3{(unsigned)(b % grid.x), (unsigned)((b / grid.x) % grid.y), (unsigned)(b / ((long)grid.x * grid.y))};
        body();
        Warp& w = warp();
        w.live.fetch_and(~(1u << (t & 31)));
        w.bar.arrive_and_drop();
        tl_block->bar.arrive_and_drop();
      });
    }
  }
  for (auto& th : threads) th.join();
  cs_dynamic_smem_bytes = 0;
}

}  // namespace cs_emu

// The pause in the grid barrier's spin loop (the prelude's cs_grid_spin_pause is empty on a GPU): the
// spinning thread gives its core to the threads that have still to arrive.
inline void cs_grid_spin_pause() { std::this_thread::yield(); }

// ── the CUDA device API used by generated code ──

inline int cs_laneid() { return cs_emu::tl_tid & 31; }

[[noreturn]] inline void cs_emu_exit_thread() { throw cs_emu::ThreadExit{}; }
inline void __syncthreads() { cs_emu::tl_block->bar.arrive_and_wait(); }
inline int __syncthreads_count(int p) { return cs_emu::block_vote(p != 0, 0); }
inline int __syncthreads_and(int p) { return cs_emu::block_vote(p != 0, 1); }
inline int __syncthreads_or(int p) { return cs_emu::block_vote(p != 0, 2); }
inline void __syncwarp(unsigned = 0xffffffffu) { cs_emu::warp().bar.arrive_and_wait(); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

template <class T>
inline T __shfl_sync(unsigned, T v, int src, int width = 32) {
  (void)width;
  return cs_emu::exchange(v, src & 31);
}
template <class T>
inline T __shfl_up_sync(unsigned, T v, unsigned delta, int width = 32) {
  (void)width;
  const int lane = cs_emu::tl_tid & 31;
  const int src = lane - (int)delta;
  return cs_emu::exchange(v, src < 0 ? -1 : src);
}
template <class T>
inline T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32) {
  (void)width;
  const int lane = cs_emu::tl_tid & 31;
  const int src = lane + (int)delta;
  return cs_emu::exchange(v, src > 31 ? -1 : src);
}
template <class T>
inline T __shfl_xor_sync(unsigned, T v, int laneMask, int width = 32) {
  (void)width;
  const int lane = cs_emu::tl_tid & 31;
  return cs_emu::exchange(v, (lane ^ laneMask) & 31);
}
inline unsigned __ballot_sync(unsigned mask, int p) { return cs_emu::ballot(p != 0) & mask; }
inline int __any_sync(unsigned mask, int p) { return (cs_emu::ballot(p != 0) & mask) != 0; }
inline int __all_sync(unsigned mask, int p) {
  const unsigned live = cs_emu::warp().live.load();
  return (cs_emu::ballot(p != 0) & mask) == (mask & live);
}
inline unsigned __activemask() { return cs_emu::warp().live.load(); }
inline int __uni_sync(unsigned mask, int p) {
  const unsigned live = cs_emu::warp().live.load();
  const unsigned b = cs_emu::ballot(p != 0) & mask;
  return b == 0 || b == (mask & live);
}
template <class T>
inline unsigned __match_any_sync(unsigned mask, T v) { return cs_emu::match(mask, v); }
template <class T>
inline unsigned __match_all_sync(unsigned mask, T v, int* pred) {
  const unsigned live = cs_emu::warp().live.load();
  // PTX's match.all gives "the non-exited threads in membermask" (0x3ff for the full mask in a
  // 10-thread block), not the mask as written.
  *pred = cs_emu::match(mask, v) == (mask & live);
  return *pred ? mask & live : 0u;
}
inline unsigned cs_lanemask_lt() { return (1u << (cs_emu::tl_tid & 31)) - 1u; }

template <class T, class V>
inline T atomicAdd(T* a, V v) { return std::atomic_ref<T>(*a).fetch_add((T)v); }
template <class T, class V>
inline T atomicSub(T* a, V v) { return std::atomic_ref<T>(*a).fetch_sub((T)v); }
template <class T, class V>
inline T atomicAnd(T* a, V v) { return std::atomic_ref<T>(*a).fetch_and((T)v); }
template <class T, class V>
inline T atomicOr(T* a, V v) { return std::atomic_ref<T>(*a).fetch_or((T)v); }
template <class T, class V>
inline T atomicXor(T* a, V v) { return std::atomic_ref<T>(*a).fetch_xor((T)v); }
template <class T, class V>
inline T atomicExch(T* a, V v) { return std::atomic_ref<T>(*a).exchange((T)v); }

namespace cs_emu {
template <class T, class Op>
inline T atomic_update(T* a, Op op) {
  std::atomic_ref<T> r(*a);
  T old = r.load();
  while (!r.compare_exchange_weak(old, op(old))) {
  }
  return old;
}
}  // namespace cs_emu

template <class T, class V>
inline T atomicMax(T* a, V v) { return cs_emu::atomic_update(a, [&](T o) { return o < (T)v ? (T)v : o; }); }
template <class T, class V>
inline T atomicMin(T* a, V v) { return cs_emu::atomic_update(a, [&](T o) { return (T)v < o ? (T)v : o; }); }
inline unsigned atomicInc(unsigned* a, unsigned v) { return cs_emu::atomic_update(a, [&](unsigned o) { return o >= v ? 0u : o + 1u; }); }
inline unsigned atomicDec(unsigned* a, unsigned v) { return cs_emu::atomic_update(a, [&](unsigned o) { return (o == 0u || o > v) ? v : o - 1u; }); }
template <class T, class C, class V>
inline T atomicCAS(T* a, C compare, V v) {
  T expected = (T)compare;
  std::atomic_ref<T>(*a).compare_exchange_strong(expected, (T)v);
  return expected;
}

inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned long long __brevll(unsigned long long x) {
  unsigned long long r = 0;
  for (int i = 0; i < 64; i++) r |= ((x >> i) & 1ull) << (63 - i);
  return r;
}
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline float __int_as_float(int x) { return cs_emu::from_bits<float>((unsigned)x); }
inline int __float_as_int(float x) { return (int)(unsigned)cs_emu::to_bits(x); }
inline double __longlong_as_double(long long x) { return cs_emu::from_bits<double>((unsigned long long)x); }
inline long long __double_as_longlong(double x) { return (long long)cs_emu::to_bits(x); }

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }

// ── test driver: reads buffers and launches from a file, writes the buffers back ──
//
// Input (little-endian): "CSEM", u32 buffer count, then per buffer u64 byte length and the bytes;
// u32 launch count, then per launch: u32 kernel index, u32 grid[3], u32 block[3], u32 shared bytes,
// u32 argument count, then per argument u32 kind: 0 = scalar (f64 value follows), 1 = array
// (u32 buffer index, u32 rank, i32 extents[rank], i32 element strides[rank]), 2 = 64-bit integer scalar (its 8 bytes follow:
// an f64 cannot hold every i64/u64). Output: per buffer, u64 byte length and the bytes.
namespace cs_emu {

struct Arg {
  unsigned kind = 0;
  double value = 0;
  unsigned long long bits = 0;
  unsigned buffer = 0;
  std::vector<int> extents;
  std::vector<int> strides;
};

struct Launch {
  unsigned kernel = 0;
  dim3 grid, block;
  unsigned shared = 0;
  std::vector<Arg> args;
  std::vector<std::vector<unsigned char>>* buffers = nullptr;

  template <class T>
  T scalar(size_t i) const {
    // kind 2: a 64-bit integer's exact bits (doubles cannot hold them past 2^53).
    if constexpr (std::is_integral_v<T>)
      if (args.at(i).kind == 2) return (T)args.at(i).bits;
    const double v = args.at(i).value;
    if constexpr (std::is_same_v<T, bool>) return v != 0;
    else if constexpr (std::is_same_v<T, cs_half>) return cs_half(v);
    else if constexpr (std::is_floating_point_v<T>) return (T)v;
    else if constexpr (std::is_signed_v<T>) return (T)(long long)v;
    else return (T)(unsigned long long)(long long)v;
  }
  template <class T>
  T* ptr(size_t i) const {
    return reinterpret_cast<T*>((*buffers).at(args.at(i).buffer).data());
  }
  int extent(size_t i, size_t d) const { return args.at(i).extents.at(d); }
  int stride(size_t i, size_t d) const { return args.at(i).strides.at(d); }
};

inline bool read_exact(FILE* f, void* p, size_t n) { return n == 0 || fread(p, 1, n, f) == n; }

template <class Dispatch>
inline int run_driver(int argc, char** argv, Dispatch dispatch) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s input.bin output.bin\n", argv[0]);
    return 2;
  }
  FILE* in = fopen(argv[1], "rb");
  if (!in) return 2;
  char magic[4];
  unsigned count = 0;
  if (!read_exact(in, magic, 4) || std::memcmp(magic, "CSEM", 4) != 0 || !read_exact(in, &count, 4)) return 2;
  std::vector<std::vector<unsigned char>> buffers(count);
  for (auto& b : buffers) {
    unsigned long long bytes = 0;
    if (!read_exact(in, &bytes, 8)) return 2;
    b.reserve(bytes + 16);  // never without storage, so data() is a valid pointer even when empty
    b.resize(bytes);
    if (!read_exact(in, b.data(), bytes)) return 2;
  }
  unsigned launches = 0;
  if (!read_exact(in, &launches, 4)) return 2;
  std::vector<Launch> all(launches);
  for (auto& l : all) {
    unsigned g[3], bl[3], nargs = 0;
    if (!read_exact(in, &l.kernel, 4) || !read_exact(in, g, 12) || !read_exact(in, bl, 12) || !read_exact(in, &l.shared, 4) || !read_exact(in, &nargs, 4)) return 2;
    l.grid = dim3(g[0], g[1], g[2]);
    l.block = dim3(bl[0], bl[1], bl[2]);
    l.buffers = &buffers;
    l.args.resize(nargs);
    for (auto& a : l.args) {
      if (!read_exact(in, &a.kind, 4)) return 2;
      if (a.kind == 0) {
        if (!read_exact(in, &a.value, 8)) return 2;
      } else if (a.kind == 2) {
        if (!read_exact(in, &a.bits, 8)) return 2;
      } else {
        unsigned rank = 0;
        if (!read_exact(in, &a.buffer, 4) || !read_exact(in, &rank, 4)) return 2;
        a.extents.resize(rank);
        a.strides.resize(rank);
        if (!read_exact(in, a.extents.data(), 4 * rank) || !read_exact(in, a.strides.data(), 4 * rank)) return 2;
      }
    }
  }
  fclose(in);
  for (auto& l : all) dispatch(l);
  FILE* out = fopen(argv[2], "wb");
  if (!out) return 2;
  for (auto& b : buffers) {
    unsigned long long bytes = b.size();
    fwrite(&bytes, 8, 1, out);
    fwrite(b.data(), 1, b.size(), out);
  }
  fclose(out);
  return 0;
}

}  // namespace cs_emu
#include "libdevice_emulation.hpp"  // libdevice (__nv_*): test/libdevice/emulation.test.ts
