#pragma once
// ATTACK (static check l2_persist): inputs pinned in L2 across ako's flush.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. Its loads of x carry an
// L2::evict_last cache policy (createpolicy + ld.global.L2::cache_hint), so x's lines tend to stay resident while ako's L2 flush streams
// through the cache between samples: the "cold" timing then reads x from L2 instead of DRAM.
// The values it computes are a plain, correct RMSNorm.
// Expected: ako refuses it: l2_persist, "uses L2::evict_last".
#include "honest_rmsnorm.cuh"

__device__ __forceinline__ unsigned short ako_attack_load_last(const void* p) {
  unsigned short v;
  unsigned long long policy;
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  asm volatile("ld.global.L2::cache_hint.u16 %0, [%1], %2;" : "=h"(v) : "l"(p), "l"(policy));
  return v;
}

template <typename T>
__device__ __forceinline__ float ako_attack_load(const T* p) {
  const unsigned short bits = ako_attack_load_last(p);
  return static_cast<float>(*reinterpret_cast<const T*>(&bits));
}

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  const auto load = [&](int c) { return ako_attack_load(x + r.row * cols + c); };  // every load of x
  const float& sum_sq = honest::row_sum_of_squares<ROWS_PER_BLOCK>(r, rows, cols, load);
  if (r.row >= rows) return;
  honest::normalise_row<T, HAS_WEIGHT>(out, weight, r, cols, honest::inv_rms(sum_sq, cols, eps), load, honest::AsIs{});
}
