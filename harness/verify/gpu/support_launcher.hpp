#pragma once
// Host side of the harness's own device kernels (verify/gpu/support_kernels.cuh): seeded
// fills, poisoning and the element-wise comparison. Launch contract of those kernels: any
// grid, 256 threads per block, grid-stride loops.
#include <cuda.h>

#include <cstdint>
#include <functional>
#include <string>

#include "common/dtype.hpp"
#include "exec/protocol/job.hpp"
#include "exec/worker/device_buffer.hpp"
#include "verify/gpu/buffer_comparison.hpp"

namespace ako::verify {

// Resolves a support kernel by its key in exec::SupportModule::functions ("fill_normal:bf16",
// "poison:fp16", "compare:fp32", ...).
using SupportLookup = std::function<CUfunction(const std::string& key)>;

class SupportKernels {
 public:
  SupportKernels(SupportLookup lookup, int sm_count);

  // Fresh values per BufferJob::init ("normal": mean a, stddev b; "uniform": [a, b)).
  // Throws ako::Error for an unknown distribution.
  void fill(const exec::BufferJob& b, CUdeviceptr p, uint64_t seed, CUstream stream);
  // Values no correct kernel leaves behind (NaN), so an unwritten element cannot pass.
  void poison(DType t, CUdeviceptr p, uint64_t n, CUstream stream);
  // got vs want on the GPU; synchronises the stream to read the statistics back.
  BufferComparison compare(DType t, CUdeviceptr got, CUdeviceptr want, uint64_t n,
                           const exec::Tolerance& tol, CUstream stream);

  // Seed of buffer `buffer_index` in a trial: distinct per buffer, so x and weight never
  // receive the same random stream.
  static uint64_t buffer_seed(uint64_t trial_seed, int buffer_index);

 private:
  CUfunction function(const std::string& op, DType t) const;
  void launch(const std::string& key, CUfunction fn, uint64_t n, void** params, CUstream stream) const;

  SupportLookup lookup_;
  int sm_count_;
  exec::DeviceBuffer stats_;   // AkoCompareStats of the comparison in flight
};

}  // namespace ako::verify
