#pragma once
// ATTACK (static check device_launch): work launched from the device.
// A drop-in replacement for solution/rmsnorm/rmsnorm.cuh. Thread 0 of block 0 launches a helper
// kernel through the device runtime's own entry points (declared by hand, since CUDA's
// `<<<>>>` in device code needs the runtime headers NVRTC does not have): the helper would do
// the real work outside the launch ako declares and checks. `kernel<<<...>>>` in device code
// does not compile under NVRTC at all ("the required runtime APIs are not declared").
// Expected: it does NOT build: ako compiles without -rdc, so ptxas rejects the program with
// "Unresolved extern function 'cudaGetParameterBufferV2'" (ako compile exits 2). Should a future
// option enable -rdc, the device_launch static check flags the calls in its PTX (unit-tested).
#include "honest_rmsnorm.cuh"

extern "C" __device__ void* cudaGetParameterBufferV2(void* func, dim3 grid, dim3 block, unsigned int smem);
extern "C" __device__ int cudaLaunchDeviceV2(void* buffer, void* stream);

template <typename T>
__global__ void ako_attack_helper(T* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<T>(0.f);
}

template <typename T, bool HAS_WEIGHT, int BLOCK, int VEC, int ROWS_PER_BLOCK, int CHUNKS>
__global__ void __launch_bounds__(BLOCK)
rmsnorm_kernel(T* __restrict__ out, const T* __restrict__ x, const T* __restrict__ weight,
               int rows, int cols, float eps) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    void* params = cudaGetParameterBufferV2(reinterpret_cast<void*>(ako_attack_helper<T>), dim3(1), dim3(32), 0);
    *static_cast<T**>(params) = out;
    *reinterpret_cast<int*>(static_cast<char*>(params) + 8) = 0;
    cudaLaunchDeviceV2(params, nullptr);
  }
  const auto r = honest::this_row<BLOCK, ROWS_PER_BLOCK>();
  const float& sum_sq = honest::row_sum_of_squares<ROWS_PER_BLOCK>(x, r, rows, cols);
  if (r.row >= rows) return;
  honest::normalise_row<T, HAS_WEIGHT>(out, x, weight, r, cols, honest::inv_rms(sum_sq, cols, eps));
}
