#pragma once
// The harness's own device kernels: fill inputs, poison outputs, compare outputs, check what a
// kernel must not have written. Compiled by NVRTC in the parent (light headers only:
// cuda_fp16.h, cuda_bf16.h) and launched by the worker, which looks them up by name expression:
//   "ako_fill_normal<T>", "ako_fill_uniform<T>"   T in {__nv_bfloat16, __half, float}
//   "ako_fill_range<T>"                           T in {int, long long}
//   "ako_poison<T>", "ako_compare<T>"             T in all five: the floating ones, int, long long
//   "ako_check_outside<W>"                        W in {unsigned short, unsigned int, unsigned long long}
//   "ako_widen<T>", "ako_oracle_error<T>"          T in {__nv_bfloat16, __half, float} (the precision check)
// and, for the trustworthy-verdict defences, "ako_guard_fill<unsigned char>",
// "ako_guard_check<unsigned char>", "ako_smem_scribble<unsigned int>", "ako_clock_probe<unsigned
// long long>" and "ako_l2_evict<unsigned long long>".
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
__device__ __forceinline__ float to_float(int v) { return static_cast<float>(v); }
__device__ __forceinline__ float to_float(long long v) { return static_cast<float>(v); }

// Integer element types compare exactly (no <type_traits> under NVRTC's light headers).
template <typename T> struct is_integer { static constexpr bool value = false; };
template <> struct is_integer<int> { static constexpr bool value = true; };
template <> struct is_integer<long long> { static constexpr bool value = true; };

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
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "16-, 32- or 64-bit element types");
  if constexpr (sizeof(T) == 2) return *reinterpret_cast<const unsigned short*>(&a) == *reinterpret_cast<const unsigned short*>(&b);
  else if constexpr (sizeof(T) == 4) return *reinterpret_cast<const unsigned int*>(&a) == *reinterpret_cast<const unsigned int*>(&b);
  else return *reinterpret_cast<const unsigned long long*>(&a) == *reinterpret_cast<const unsigned long long*>(&b);
}

// Storage element of the view's element j (exec::element_at on the host). The loops unroll to
// constant indices, so the view stays in parameter space (no local-memory copy).
__device__ __forceinline__ long long view_element(const AkoView& v, unsigned long long j) {
  if (v.rank == 1) return v.offset + static_cast<long long>(j) * v.strides[0];   // whole buffers
  long long e = v.offset;
#pragma unroll
  for (int k = 3; k >= 0; --k) {
    if (k >= v.rank) continue;
    const unsigned long long extent = static_cast<unsigned long long>(v.extents[k]);
    e += static_cast<long long>(j % extent) * v.strides[k];
    j /= extent;
  }
  return e;
}

// Whether storage element e belongs to the view, whose dimensions the host ordered by stride,
// largest first, none zero (exec::covers on the host): the greedy decomposition.
__device__ __forceinline__ bool view_covers(const AkoView& v, long long e) {
  long long r = e - v.offset;
  if (r < 0) return false;
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    if (k >= v.rank) continue;
    const long long idx = r / v.strides[k];
    if (idx >= v.extents[k]) return false;
    r -= idx * v.strides[k];
  }
  return r == 0;
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

// p[i] = T(low + floor(u * (high - low))), u uniform in [0, 1) with 64 random bits: integers
// uniform in [low, high) (the host checks that the bounds fit T). The span is taken unsigned, so
// any int64 bounds with low < high work.
template <typename T>
__global__ void ako_fill_range(T* p, unsigned long long n, unsigned long long seed, long long low, long long high) {
  using namespace ako_support;
  const unsigned long long span = static_cast<unsigned long long>(high) - static_cast<unsigned long long>(low);
  for (unsigned long long i = grid_start(); i < n; i += grid_stride()) {
    const unsigned long long step = __umul64hi(random_bits(seed, i), span);   // in [0, span)
    p[i] = static_cast<T>(static_cast<long long>(static_cast<unsigned long long>(low) + step));
  }
}

// Every bit set over the view's elements: a NaN in fp16 (0xFFFF), bf16 (0xFFFF) and fp32
// (0xFFFFFFFF), -1 in int and long long, so an output element the kernel under test never
// writes fails the comparison. Whole out buffers are poisoned with a memset; this kernel poisons
// the out views inside an inout storage (which is restored, not poisoned, as a whole).
template <typename T>
__global__ void ako_poison(T* base, AkoView v) {
  using namespace ako_support;
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "16-, 32- or 64-bit element types");
  for (unsigned long long j = grid_start(); j < v.count; j += grid_stride()) {
    const long long e = view_element(v, j);
    if constexpr (sizeof(T) == 2) reinterpret_cast<unsigned short*>(base)[e] = 0xFFFFu;
    else if constexpr (sizeof(T) == 4) reinterpret_cast<unsigned int*>(base)[e] = 0xFFFFFFFFu;
    else reinterpret_cast<unsigned long long*>(base)[e] = ~0ull;
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

// Unit element j (got, want) added to a thread's share, by the rules of compare_stats.h.
template <typename T>
__device__ __forceinline__ void compare_element(ComparePartial& mine, T got, T want, unsigned long long j, float atol,
                                                float rtol) {
  ++mine.checked;
  const float rel_floor = fmaxf(atol, 1.17549435e-38f);
  float err;   // ranks the worst element
  if constexpr (is_integer<T>::value) {
    // Exact: any difference is a mismatch, however small the tolerance would call it.
    const bool differ = got != want;
    const float d = differ ? fmaxf(static_cast<float>(fabs(static_cast<double>(got) - static_cast<double>(want))), 1.0f) : 0.0f;
    if (differ) ++mine.mismatches;
    mine.max_abs = fmaxf(mine.max_abs, d);
    mine.max_rel = fmaxf(mine.max_rel, d / fmaxf(fabsf(to_float(want)), rel_floor));
    err = d;
  } else {
    const float g = to_float(got), w = to_float(want);
    const bool g_finite = isfinite(g), w_finite = isfinite(w);
    const float d = fabsf(g - w);
    const bool both_finite = g_finite && w_finite;
    if (!w_finite) ++mine.want_nonfinite;
    if (!g_finite && w_finite) ++mine.nonfinite;
    if (!both_finite || !(d <= atol + rtol * fabsf(w))) ++mine.mismatches;
    // A non-finite pair ranks as an infinite error: worst of all.
    err = both_finite ? d : __int_as_float(0x7f800000);
    if (both_finite) {
      mine.max_abs = fmaxf(mine.max_abs, d);
      mine.max_rel = fmaxf(mine.max_rel, d / fmaxf(fabsf(w), rel_floor));
    }
  }
  const unsigned long long index_bits = j <= kIndexMask ? kIndexMask - j : 0ull;
  const unsigned long long key = (static_cast<unsigned long long>(__float_as_uint(err) >> 7) << 40) | index_bits;
  mine.worst_key = mine.worst_key > key ? mine.worst_key : key;
}

// Reduces the block's shares (warps, then warp 0 over the warps' results) and adds them to
// *stats with one set of atomics. Returns the worst unit index, in one thread of the last block
// to finish (it sees every other block's atomics), and ~0 in every other thread.
__device__ __forceinline__ unsigned long long publish(ComparePartial mine, AkoCompareStats* stats) {
  __shared__ ComparePartial warp_results[32];
  mine = warp_merge(mine);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  if (lane == 0) warp_results[warp] = mine;
  __syncthreads();
  if (warp != 0) return ~0ull;
  mine = lane < warps ? warp_results[lane] : ComparePartial();
  mine = warp_merge(mine);
  if (lane != 0) return ~0ull;

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

  __threadfence();
  if (atomicAdd(&stats->blocks_done, 1ull) != gridDim.x - 1ull) return ~0ull;
  const unsigned long long key = atomicMax(&stats->worst_key, 0ull);  // an atomic read
  if (key == 0) return ~0ull;  // nothing was checked
  return kIndexMask - (key & kIndexMask);
}

}  // namespace ako_support

// Compares the view's elements of got with the same elements of want (both storage copies of
// one buffer) and accumulates into *stats (see compare_stats.h: the host zeroes *stats first);
// indices in the statistics are the view's own (0 .. count-1). The last block to finish fills
// worst_index / worst_got / worst_want.
template <typename T>
__global__ void ako_compare(const T* got, const T* want, AkoView v, float atol, float rtol, AkoCompareStats* stats) {
  using namespace ako_support;
  ComparePartial mine;
  // The unit's element 0, for the constant-output check (count >= 1 whenever a thread enters the loop).
  const T got0 = v.count ? got[v.offset] : T(), want0 = v.count ? want[v.offset] : T();
  for (unsigned long long j = grid_start(); j < v.count; j += grid_stride()) {
    const long long e = view_element(v, j);
    const T g = got[e], w = want[e];
    if (!same_bits(g, got0)) ++mine.got_varying;
    if (!same_bits(w, want0)) ++mine.want_varying;
    compare_element(mine, g, w, j, atol, rtol);
  }
  const unsigned long long worst = publish(mine, stats);
  if (worst == ~0ull) return;
  const long long e = view_element(v, worst);
  stats->worst_index = worst;
  stats->worst_got = to_float(got[e]);
  stats->worst_want = to_float(want[e]);
}

// The precision check (tasks/README.md, "Precision against the oracle"): the oracle's fp64
// copy of a floating storage, element by element (bf16, fp16 and fp32 widen exactly).
template <typename T>
__global__ void ako_widen(const T* src, double* dst, unsigned long long n) {
  using namespace ako_support;
  for (unsigned long long i = grid_start(); i < n; i += grid_stride()) dst[i] = static_cast<double>(to_float(src[i]));
}

namespace ako_support {

// One thread's (then one warp's, one block's) share of AkoOracleStats.
struct OraclePartial {
  unsigned long long count = 0, got_nonfinite = 0, oracle_nonfinite = 0;
  double sum_sq_err = 0, max_abs_err = 0, sum_sq_oracle = 0, max_abs_oracle = 0;

  __device__ __forceinline__ void merge(const OraclePartial& o) {
    count += o.count;
    got_nonfinite += o.got_nonfinite;
    oracle_nonfinite += o.oracle_nonfinite;
    sum_sq_err += o.sum_sq_err;
    max_abs_err = fmax(max_abs_err, o.max_abs_err);
    sum_sq_oracle += o.sum_sq_oracle;
    max_abs_oracle = fmax(max_abs_oracle, o.max_abs_oracle);
  }

  __device__ __forceinline__ OraclePartial shfl_xor(int offset) const {
    OraclePartial o;
    o.count = __shfl_xor_sync(0xffffffffu, count, offset);
    o.got_nonfinite = __shfl_xor_sync(0xffffffffu, got_nonfinite, offset);
    o.oracle_nonfinite = __shfl_xor_sync(0xffffffffu, oracle_nonfinite, offset);
    o.sum_sq_err = __shfl_xor_sync(0xffffffffu, sum_sq_err, offset);
    o.max_abs_err = __shfl_xor_sync(0xffffffffu, max_abs_err, offset);
    o.sum_sq_oracle = __shfl_xor_sync(0xffffffffu, sum_sq_oracle, offset);
    o.max_abs_oracle = __shfl_xor_sync(0xffffffffu, max_abs_oracle, offset);
    return o;
  }
};

__device__ __forceinline__ OraclePartial warp_merge(OraclePartial p) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) p.merge(p.shfl_xor(offset));
  return p;
}

// A non-negative double's running maximum, through its bits (they order like the values).
__device__ __forceinline__ void atomic_max_non_negative(double* p, double v) {
  atomicMax(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(__double_as_longlong(v)));
}

}  // namespace ako_support

namespace ako_support {

// Element e of one output (as double) against the oracle's value o, into p.
__device__ __forceinline__ void add_oracle_error(OraclePartial& p, double o, double g) {
  if (!isfinite(o)) {
    ++p.oracle_nonfinite;
  } else if (!isfinite(g)) {
    ++p.got_nonfinite;
  } else {
    const double d = fabs(g - o);
    ++p.count;
    p.sum_sq_err += d * d;
    p.max_abs_err = fmax(p.max_abs_err, d);
    p.sum_sq_oracle += o * o;
    p.max_abs_oracle = fmax(p.max_abs_oracle, fabs(o));
  }
}

// The block's partials merged, then added to *stats by one thread.
__device__ __forceinline__ void block_add_oracle_stats(OraclePartial mine, AkoOracleStats* stats) {
  __shared__ OraclePartial warp_results[32];
  mine = warp_merge(mine);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  __syncthreads();   // warp_results may still be read from a previous call
  if (lane == 0) warp_results[warp] = mine;
  __syncthreads();
  if (warp != 0) return;
  mine = lane < warps ? warp_results[lane] : OraclePartial();
  mine = warp_merge(mine);
  if (lane != 0 || (mine.count == 0 && mine.got_nonfinite == 0 && mine.oracle_nonfinite == 0)) return;
  atomicAdd(&stats->count, mine.count);
  atomicAdd(&stats->got_nonfinite, mine.got_nonfinite);
  atomicAdd(&stats->oracle_nonfinite, mine.oracle_nonfinite);
  atomicAdd(&stats->sum_sq_err, mine.sum_sq_err);
  atomicAdd(&stats->sum_sq_oracle, mine.sum_sq_oracle);
  atomic_max_non_negative(&stats->max_abs_err, mine.max_abs_err);
  atomic_max_non_negative(&stats->max_abs_oracle, mine.max_abs_oracle);
}

}  // namespace ako_support

// The view's elements of two kernels' outputs (the reference's and the solution's) against the
// same elements of the oracle's fp64 copy of that storage, accumulated into stats[0] and
// stats[1] (compare_stats.h, AkoOracleStats; the host zeroes them). One pass: the oracle's
// doubles, the largest stream, are read once for both. Launch contract as ako_compare's.
template <typename T>
__global__ void ako_oracle_error(const T* got0, const T* got1, const double* oracle, AkoView v,
                                 AkoOracleStats* stats) {
  using namespace ako_support;
  OraclePartial first, second;
  for (unsigned long long j = grid_start(); j < v.count; j += grid_stride()) {
    const long long e = view_element(v, j);
    const double o = oracle[e];
    add_oracle_error(first, o, static_cast<double>(to_float(got0[e])));
    add_oracle_error(second, o, static_cast<double>(to_float(got1[e])));
  }
  block_add_oracle_stats(first, &stats[0]);
  block_add_oracle_stats(second, &stats[1]);
}

// A storage with writable views: counts the elements outside every view of `views` whose bits
// differ from the pristine copy (what the kernel was handed). stats as ako_guard_check's:
// stats[0] += changed elements, stats[1] = max(~element), stats[2] = max(element); the host
// zeroes them. Views in membership order (compare_stats.h, AkoView).
template <typename W>
__global__ void ako_check_outside(const W* got, const W* pristine, unsigned long long n, AkoViewSet views,
                                  unsigned long long* stats) {
  using namespace ako_support;
  unsigned long long changed = 0, first = ~0ull, last = 0;
  for (unsigned long long i = grid_start(); i < n; i += grid_stride()) {
    if (got[i] == pristine[i]) continue;   // unsigned words: a bitwise comparison
    bool inside = false;
#pragma unroll
    for (int v = 0; v < 8; ++v)
      if (v < views.count && view_covers(views.views[v], static_cast<long long>(i))) inside = true;
    if (inside) continue;
    ++changed;
    first = i < first ? i : first;
    last = i > last ? i : last;
  }
  if (!changed) return;
  atomicAdd(&stats[0], changed);
  atomicMax(&stats[1], ~first);
  atomicMax(&stats[2], last);
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
