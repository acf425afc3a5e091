// Session 35 (call 15): scale_shift's bf16 and fp16 same-dtype [B, C] kernels at 64 x 8 x 2 with ROW_CACHE 1, built
// by nvcc for sm_90a so their SASS can be read side by side (cuobjdump on the GPU machine): the bf16 one ran 8-11%
// slower than its fp16 twin on wan13b and text-512 in every ako run (calls 1, 2, 12-14) with the same PTX memory ops.
#include "../../../../solution/scale_shift/scale_shift.cuh"
template __global__ void scale_shift_kernel<__nv_bfloat16, __nv_bfloat16, Layout::bc, 8, 64, 8, 2, 0, 1>(
    __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, int, int, int, int);
template __global__ void scale_shift_kernel<__half, __half, Layout::bc, 8, 64, 8, 2, 0, 1>(
    __half*, const __half*, const __half*, const __half*, int, int, int, int);
