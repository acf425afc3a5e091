#pragma once
// Device memory to and from the host for the reference check against the fp64 oracle: each
// call enqueues on `stream` and synchronises it.
#include <cuda.h>

#include <cstdint>
#include <vector>

#include "model/dtype.hpp"

namespace ako::verify {

// The n elements at p, converted exactly to double (bf16, fp16, fp32; integers as their value,
// exact below 2^53).
std::vector<double> download_as_double(CUdeviceptr p, DType t, uint64_t n, CUstream stream);
// n doubles at p (an oracle's floating buffer).
std::vector<double> download_doubles(CUdeviceptr p, uint64_t n, CUstream stream);
// The n elements of an integer buffer at p, widened to int64.
std::vector<int64_t> download_integers(CUdeviceptr p, DType t, uint64_t n, CUstream stream);
// bytes from host memory to p.
void upload(CUdeviceptr p, const void* data, uint64_t bytes, CUstream stream);

}  // namespace ako::verify
