#pragma once
// ATTACK (static check l2_persist): inputs pinned in L2 across ako's flush.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. Its loads of x carry an
// L2::evict_last cache policy (createpolicy + ld.global.L2::cache_hint), so x's lines tend to stay resident while ako's L2 flush streams
// through the cache between samples: the "cold" timing then reads x from L2 instead of DRAM.
// The values it computes are a plain, correct RMSNorm.
// Expected: ako refuses it: l2_persist, "uses L2::evict_last".
#include <cuda_bf16.h>
#include <cuda_fp16.h>

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
  constexpr int TPR = BLOCK / ROWS_PER_BLOCK;
  const int lane = threadIdx.x % TPR, slot = threadIdx.x / TPR;
  const long long row = static_cast<long long>(blockIdx.x) * ROWS_PER_BLOCK + slot;
  __shared__ float sums[ROWS_PER_BLOCK];
  if (threadIdx.x < ROWS_PER_BLOCK) sums[threadIdx.x] = 0.f;
  __syncthreads();
  float s = 0.f;
  for (int c = lane; row < rows && c < cols; c += TPR) {
    const float v = ako_attack_load(x + row * cols + c);
    s += v * v;
  }
  atomicAdd(&sums[slot], s);
  __syncthreads();
  if (row >= rows) return;
  const float inv_rms = rsqrtf(sums[slot] / static_cast<float>(cols) + eps);
  for (int c = lane; c < cols; c += TPR) {
    float y = ako_attack_load(x + row * cols + c) * inv_rms;
    if (HAS_WEIGHT) y *= static_cast<float>(weight[c]);
    out[row * cols + c] = static_cast<T>(y);
  }
}
