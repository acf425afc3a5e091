#pragma once
// The harness's own device kernels: fill inputs, poison outputs, compare outputs. Compiled
// by NVRTC in the parent (light headers only: cuda_fp16.h, cuda_bf16.h) and launched by
// the worker, which looks them up by name expression for T in {__nv_bfloat16, __half, float}:
//   "ako_fill_normal<T>", "ako_fill_uniform<T>", "ako_poison<T>", "ako_compare<T>",
// and, for the trustworthy-verdict defences, "ako_guard_fill<unsigned char>",
// "ako_guard_check<unsigned char>" and "ako_smem_scribble<unsigned int>".
//
// Launch contract: any grid size, block = 256 threads (every kernel is a grid-stride loop;
// ako_compare needs blockDim.x to be a multiple of 32, at most 1024). The values written
// depend only on (seed, index), never on the launch configuration.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "compare_stats.h"

namespace ako_support {

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename T> __device__ __forceinline__ T from_float(float v);
template <> __device__ __forceinline__ float from_float<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }

// SplitMix64's output function.
__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Element `index` of a SplitMix64 stream seeded by mix64(seed): counter-based, so a pure
// function of (seed, index) that any thread can compute on its own.
__device__ __forceinline__ unsigned long long random_bits(unsigned long long seed, unsigned long long index) {
  return mix64(mix64(seed) + (index + 1) * 0x9E3779B97F4A7C15ull);
}

// 24 random bits as an exactly representable float in (0, 1] or [0, 1).
__device__ __forceinline__ float unit_open_closed(unsigned bits) { return static_cast<float>((bits >> 8) + 1) * (1.0f / 16777216.0f); }
__device__ __forceinline__ float unit_closed_open(unsigned bits) { return static_cast<float>(bits >> 8) * (1.0f / 16777216.0f); }

__device__ __forceinline__ unsigned long long grid_start() { return blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; }
__device__ __forceinline__ unsigned long long grid_stride() { return gridDim.x * static_cast<unsigned long long>(blockDim.x); }

constexpr unsigned long long kIndexMask = (1ull << 40) - 1;  // worst_key keeps 40 index bits

// Bitwise equality of two elements (+0 and -0 differ, equal NaN payloads match).
template <typename T> __device__ __forceinline__ bool same_bits(T a, T b) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "16- or 32-bit element types");
  if constexpr (sizeof(T) == 2) return *reinterpret_cast<const unsigned short*>(&a) == *reinterpret_cast<const unsigned short*>(&b);
  else return *reinterpret_cast<const unsigned int*>(&a) == *reinterpret_cast<const unsigned int*>(&b);
}

// Byte i of a guard band seeded with `salt`: SplitMix64 of (salt, i), the same function as
// exec::guard_byte on the host (exec/protocol/guard_layout.cpp).
__device__ __forceinline__ unsigned char guard_byte(unsigned long long salt, unsigned long long i) {
  unsigned long long z = salt + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<unsigned char>(z ^ (z >> 31));
}

}  // namespace ako_support

// p[i] = T(mean + std * z), z standard normal (Box-Muller on one 64-bit draw), |z| <= 5.8.
template <typename T>
__global__ void ako_fill_normal(T* p, unsigned long long n, unsigned long long seed, float mean, float std) {
  using namespace ako_support;
  for (unsigned long long i = grid_start(); i < n; i += grid_stride()) {
    const unsigned long long h = random_bits(seed, i);
    const float u1 = unit_open_closed(static_cast<unsigned>(h >> 32));  // > 0: log is finite
    const float u2 = unit_closed_open(static_cast<unsigned>(h));
    const float z = sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
    p[i] = from_float<T>(mean + std * z);
  }
}

// p[i] = T(lo + (hi - lo) * u), u uniform in [0, 1); rounding to T may reach hi itself.
template <typename T>
__global__ void ako_fill_uniform(T* p, unsigned long long n, unsigned long long seed, float lo, float hi) {
  using namespace ako_support;
  for (unsigned long long i = grid_start(); i < n; i += grid_stride()) {
    const float u = unit_closed_open(static_cast<unsigned>(random_bits(seed, i) >> 32));
    p[i] = from_float<T>(lo + (hi - lo) * u);
  }
}

// Every bit set: a NaN in fp16 (0xFFFF), bf16 (0xFFFF) and fp32 (0xFFFFFFFF), so an output
// element the kernel under test never writes fails the comparison.
template <typename T>
__global__ void ako_poison(T* p, unsigned long long n) {
  using namespace ako_support;
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "16- or 32-bit element types");
  for (unsigned long long i = grid_start(); i < n; i += grid_stride()) {
    if constexpr (sizeof(T) == 2) reinterpret_cast<unsigned short*>(p)[i] = 0xFFFFu;
    else reinterpret_cast<unsigned int*>(p)[i] = 0xFFFFFFFFu;
  }
}

namespace ako_support {

// One thread's (then one warp's, one block's) share of AkoCompareStats.
struct ComparePartial {
  unsigned long long checked = 0, mismatches = 0, nonfinite = 0, want_nonfinite = 0, worst_key = 0;
  unsigned long long got_varying = 0, want_varying = 0;
  float max_abs = 0.f, max_rel = 0.f;

  __device__ __forceinline__ void merge(const ComparePartial& o) {
    checked += o.checked;
    got_varying += o.got_varying;
    want_varying += o.want_varying;
    mismatches += o.mismatches;
    nonfinite += o.nonfinite;
    want_nonfinite += o.want_nonfinite;
    worst_key = worst_key > o.worst_key ? worst_key : o.worst_key;
    max_abs = fmaxf(max_abs, o.max_abs);
    max_rel = fmaxf(max_rel, o.max_rel);
  }

  __device__ __forceinline__ ComparePartial shfl_xor(int offset) const {
    ComparePartial o;
    o.checked = __shfl_xor_sync(0xffffffffu, checked, offset);
    o.mismatches = __shfl_xor_sync(0xffffffffu, mismatches, offset);
    o.nonfinite = __shfl_xor_sync(0xffffffffu, nonfinite, offset);
    o.want_nonfinite = __shfl_xor_sync(0xffffffffu, want_nonfinite, offset);
    o.got_varying = __shfl_xor_sync(0xffffffffu, got_varying, offset);
    o.want_varying = __shfl_xor_sync(0xffffffffu, want_varying, offset);
    o.worst_key = __shfl_xor_sync(0xffffffffu, worst_key, offset);
    o.max_abs = __shfl_xor_sync(0xffffffffu, max_abs, offset);
    o.max_rel = __shfl_xor_sync(0xffffffffu, max_rel, offset);
    return o;
  }
};

__device__ __forceinline__ ComparePartial warp_merge(ComparePartial p) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) p.merge(p.shfl_xor(offset));
  return p;
}

}  // namespace ako_support

// Compares got with want element-wise and accumulates into *stats (see compare_stats.h:
// the host zeroes *stats first). Block reduction first, then one set of atomics per block;
// the last block to finish fills worst_index / worst_got / worst_want.
template <typename T>
__global__ void ako_compare(const T* got, const T* want, unsigned long long n, float atol, float rtol,
                            AkoCompareStats* stats) {
  using namespace ako_support;
  ComparePartial mine;
  // Element 0's bits, for the constant-output check (n >= 1 whenever a thread enters the loop).
  const T got0 = n ? got[0] : T(), want0 = n ? want[0] : T();
  for (unsigned long long i = grid_start(); i < n; i += grid_stride()) {
    if (!same_bits(got[i], got0)) ++mine.got_varying;
    if (!same_bits(want[i], want0)) ++mine.want_varying;
    const float g = to_float(got[i]), w = to_float(want[i]);
    const bool g_finite = isfinite(g), w_finite = isfinite(w);
    const float d = fabsf(g - w);
    const bool both_finite = g_finite && w_finite;
    ++mine.checked;
    if (!w_finite) ++mine.want_nonfinite;
    if (!g_finite && w_finite) ++mine.nonfinite;
    if (!both_finite || !(d <= atol + rtol * fabsf(w))) ++mine.mismatches;
    // A non-finite pair ranks as an infinite error: worst of all.
    const float err = both_finite ? d : __int_as_float(0x7f800000);
    if (both_finite) {
      mine.max_abs = fmaxf(mine.max_abs, d);
      mine.max_rel = fmaxf(mine.max_rel, d / fmaxf(fabsf(w), fmaxf(atol, 1.17549435e-38f)));
    }
    const unsigned long long index_bits = i <= kIndexMask ? kIndexMask - i : 0ull;
    const unsigned long long key = (static_cast<unsigned long long>(__float_as_uint(err) >> 7) << 40) | index_bits;
    mine.worst_key = mine.worst_key > key ? mine.worst_key : key;
  }

  // Block reduction: warps, then warp 0 over the warps' results.
  __shared__ ComparePartial warp_results[32];
  mine = warp_merge(mine);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  if (lane == 0) warp_results[warp] = mine;
  __syncthreads();
  if (warp != 0) return;
  mine = lane < warps ? warp_results[lane] : ComparePartial();
  mine = warp_merge(mine);
  if (lane != 0) return;

  atomicAdd(&stats->checked, mine.checked);
  atomicAdd(&stats->mismatches, mine.mismatches);
  atomicAdd(&stats->nonfinite, mine.nonfinite);
  atomicAdd(&stats->want_nonfinite, mine.want_nonfinite);
  atomicAdd(&stats->got_varying, mine.got_varying);
  atomicAdd(&stats->want_varying, mine.want_varying);
  atomicMax(&stats->worst_key, mine.worst_key);
  // Non-negative floats order like their bit patterns.
  atomicMax(reinterpret_cast<unsigned int*>(&stats->max_abs), __float_as_uint(mine.max_abs));
  atomicMax(reinterpret_cast<unsigned int*>(&stats->max_rel), __float_as_uint(mine.max_rel));

  // The last block to arrive sees every other block's atomics (fence, then count).
  __threadfence();
  if (atomicAdd(&stats->blocks_done, 1ull) != gridDim.x - 1ull) return;
  const unsigned long long key = atomicMax(&stats->worst_key, 0ull);  // an atomic read
  if (key == 0) return;  // nothing was checked
  const unsigned long long index = kIndexMask - (key & kIndexMask);
  stats->worst_index = index;
  stats->worst_got = to_float(got[index]);
  stats->worst_want = to_float(want[index]);
}

// Guard bands (exec/protocol/guard_layout.hpp): fill n bytes with the salted pattern ...
template <typename B>
__global__ void ako_guard_fill(B* p, unsigned long long n, unsigned long long salt) {
  using namespace ako_support;
  static_assert(sizeof(B) == 1, "bytes");
  for (unsigned long long i = grid_start(); i < n; i += grid_stride()) p[i] = static_cast<B>(guard_byte(salt, i));
}

// ... and count the bytes that changed. stats[0] += changed bytes, stats[1] = max(~offset)
// (so ~stats[1] is the first changed offset), stats[2] = max(offset); the host zeroes stats.
template <typename B>
__global__ void ako_guard_check(const B* p, unsigned long long n, unsigned long long salt, unsigned long long* stats) {
  using namespace ako_support;
  static_assert(sizeof(B) == 1, "bytes");
  unsigned long long changed = 0, first = ~0ull, last = 0;
  for (unsigned long long i = grid_start(); i < n; i += grid_stride()) {
    if (static_cast<unsigned char>(p[i]) == guard_byte(salt, i)) continue;
    ++changed;
    first = i < first ? i : first;
    last = i > last ? i : last;
  }
  if (!changed) return;
  atomicAdd(&stats[0], changed);
  atomicMax(&stats[1], ~first);
  atomicMax(&stats[2], last);
}

// Fills the block's whole dynamic shared memory (launch: one block per SM, the most dynamic
// shared memory a block may have) with `pattern`, so that a kernel launched next that reads
// shared memory it never wrote sees this pattern. Run before each of the two solution runs of
// the determinism check with different patterns: reading uninitialised shared memory then
// changes the result. volatile: the stores must not be dropped as dead.
template <typename W>
__global__ void ako_smem_scribble(W pattern, unsigned long long words) {
  extern __shared__ unsigned char ako_scribble_raw[];
  volatile W* s = reinterpret_cast<volatile W*>(ako_scribble_raw);
  for (unsigned long long i = threadIdx.x; i < words; i += blockDim.x) s[i] = pattern;
}

// The SM clock, for throttle detection (NVBench's rule, cuda_tech.md section 4): one thread
// spins until at least min_ns of %globaltimer have passed and writes the nanoseconds and the
// SM cycles (clock64) that elapsed; cycles per ns is the clock the SMs ran at. The spin is long
// (tens of microseconds) because %globaltimer ticks coarsely.
template <typename U>
__global__ void ako_clock_probe(U* out, U min_ns) {
  U t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  } while (t1 - t0 < min_ns);
  const long long c1 = clock64();
  out[0] = t1 - t0;
  out[1] = static_cast<U>(c1 - c0);
}

// The cold-L2 flush (measure/gpu/l2_flush.hpp): reads a buffer twice the L2's size, so every
// line the timed kernel used is evicted, written back here (outside the timed window) when
// dirty, and the L2 is left holding clean lines only. A memset flush leaves the L2 full of
// dirty lines that the next kernel's misses must write back, inside its own timed window.
// The store never happens (no XOR of the buffer equals `never` by chance that matters: the
// host picks it); it only keeps the loads from being dropped.
template <typename U>
__global__ void ako_l2_evict(const U* p, unsigned long long n, U never, U* sink) {
  using namespace ako_support;
  U acc = 0;
  for (unsigned long long i = grid_start(); i < n; i += grid_stride()) acc ^= p[i];
  if (acc == never) sink[0] = acc;
}
