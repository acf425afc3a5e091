#pragma once
// BROKEN fp64 oracle (blame test): the inplace_scale oracle, whose first thread then calls
// __trap(). Expected (tests/gpu/kernel_blame_test.cpp): every case skipped, fault oracle_trap,
// reason "fp64 oracle at fault: trap ..."; neither the solution (compare cases) nor the
// reference (reference checks) is blamed; exit 1 (cases skipped).
__global__ void scale_oracle(double* x, const double* w, long long n, int cols) {
  const long long i = blockIdx.x * 256ll + threadIdx.x;
  if (i < n) x[i] = x[i] * w[i % cols];
  if (i == 0) __trap();
}
