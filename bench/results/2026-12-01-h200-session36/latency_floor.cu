// Session 36: the time floor of the smallest rope / qknorm_rope cases (a few hundred KB, ~2 us), where
// issue 15 asks 1.1x over the engine and ako already beats a memcpy of its bytes. Kernels with the
// solutions' grid (one 16-byte chunk of q or k a thread) and the dependences a rotation cannot avoid:
//   floor_empty  launches the grid, touches nothing
//   floor_copy   each chunk read and written back in place
//   floor_pos    the same, the store waiting on the token's position too (pos -> store)
//   floor_chain  the same, the store waiting on the cos/sin row the position names (pos -> row -> store)
// and rope's own d256 kernel (solution/rope/rope.cuh at the H200 class of d256). Built here with
// nvcc -cubin; launched from latency_floor.py. `mask` is 0 at run time: the stores write back what
// was read, but the compiler cannot drop them or their dependences.
#include <cuda_bf16.h>
#include "../../../solution/rope/rope.cuh"

extern "C" __global__ void __launch_bounds__(128) floor_empty() {}

extern "C" __global__ void __launch_bounds__(128) floor_copy(uint4* x, long long items, unsigned mask) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= items) return;
  uint4 v = x[i];
  v.x ^= mask;
  x[i] = v;
}

extern "C" __global__ void __launch_bounds__(128) floor_pos(uint4* x, const long long* pos, long long items,
                                                            int per_token, unsigned mask) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= items) return;
  uint4 v = x[i];
  const long long p = __ldg(pos + i / per_token);
  v.x ^= static_cast<unsigned>(p) & mask;
  x[i] = v;
}

extern "C" __global__ void __launch_bounds__(128) floor_chain(uint4* x, const long long* pos, const float4* cos_sin,
                                                              long long items, int per_token, int row_f4,
                                                              unsigned mask) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= items) return;
  uint4 v = x[i];
  const long long p = __ldg(pos + i / per_token);
  const float4 c = __ldg(cos_sin + p * row_f4 + (i % per_token) % row_f4);
  v.x ^= (__float_as_uint(c.x) ^ __float_as_uint(c.w)) & mask;
  x[i] = v;
}

// solution/rope/configs/device_name=NVIDIA_H200.json, class shape-d256-tuned: VEC 8, HPT 1, BLOCK 128, CS 1;
// interleaved pairs, i64 positions. latency_floor.py finds it by its mangled name.
template __global__ void rope_kernel<__nv_bfloat16, long long, false, 8, 1, 128, 1>(
    __nv_bfloat16*, __nv_bfloat16*, const float*, const long long*, int, int, int, int, long long, long long);
