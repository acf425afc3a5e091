#pragma once
// BROKEN (scale_shift, tasks/scale_shift): a drop-in for solution/scale_shift/scale_shift.cuh
// (same template, same launch geometry) that is right for every layout but bf1c, where it
// ignores the frame index and modulates every token of a batch with frame 0's row, as if the
// layout were bc. Expected: every bf1c case with F > 1 incorrect, the reason naming 'y'; every
// other case correct.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

enum class Layout { scalar, c, bc, lc, blc, bf1c };

template <typename T, typename S, Layout LAYOUT, int VEC, int TX, int TY, int ROWS_PER_THREAD, int STORE_CS = 1,
          int ROW_CACHE = 0>
__global__ void __launch_bounds__(TX * TY)
scale_shift_kernel(T* y, const T* x, const S* scale, const S* shift, int B, int L, int C, int F) {
  const long long n = static_cast<long long>(B) * L * C;
  const long long step = static_cast<long long>(gridDim.x) * TX * TY;
  for (long long i = (static_cast<long long>(blockIdx.x) * TY + threadIdx.y) * TX + threadIdx.x; i < n; i += step) {
    const long long token = i / C, c = i % C, b = token / L, l = token % L;
    long long m = 0;  // scalar
    if (LAYOUT == Layout::c) m = c;
    if (LAYOUT == Layout::bc || LAYOUT == Layout::bf1c) m = (LAYOUT == Layout::bf1c ? b * F : b) * C + c;  // frame 0
    if (LAYOUT == Layout::lc) m = l * C + c;
    if (LAYOUT == Layout::blc) m = token * C + c;
    y[i] = T(fmaf(float(x[i]), 1.0f + float(scale[m]), float(shift[m])));
  }
}
