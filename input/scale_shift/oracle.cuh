#pragma once
// fp64 oracle of scale_shift, checking the reference on the check shapes. Independent of the
// reference's indexing (layout.cuh's modulation_index): scale / shift are read as what
// tasks/scale_shift/task.json declares them, a row-major [Bs, Fs, Ls, Cs] buffer whose extents
// of 1 broadcast (stride 0), token (b, l) sitting in frame l / (L / F). No rounding: the
// output stays double. One warp per token whose lanes stride over the channels (coalesced: it
// also runs on the full benchmark shapes, every trial, as the precision check's yardstick).
// Launch: grid = B * L, block = 32.
#include "layout.cuh"

template <Layout LAYOUT>
__global__ void scale_shift_oracle(double* y, const double* x, const double* scale, const double* shift, int B, int L,
                                   int C, int F) {
  // The buffer's extents, as the task's shape expressions give them.
  const bool per_batch = LAYOUT == Layout::bc || LAYOUT == Layout::blc || LAYOUT == Layout::bf1c;
  const bool per_position = LAYOUT == Layout::lc || LAYOUT == Layout::blc;
  const long long Bs = per_batch ? B : 1, Fs = LAYOUT == Layout::bf1c ? F : 1, Ls = per_position ? L : 1,
                  Cs = LAYOUT == Layout::scalar ? 1 : C;
  // Row-major strides; a broadcast extent steps by 0.
  const long long sc = Cs == 1 ? 0 : 1, sl = Ls == 1 ? 0 : Cs, sf = Fs == 1 ? 0 : Ls * Cs, sb = Bs == 1 ? 0 : Fs * Ls * Cs;
  const long long token = blockIdx.x;
  if (token >= static_cast<long long>(B) * L || blockDim.x != 32) return;
  const long long b = token / L, l = token % L, f = Fs == 1 ? 0 : l / (L / F);
  for (long long c = threadIdx.x; c < C; c += 32) {
    const long long m = b * sb + f * sf + l * sl + c * sc;
    y[token * C + c] = x[token * C + c] * (1.0 + scale[m]) + shift[m];
  }
}
