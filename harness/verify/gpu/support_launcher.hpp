#pragma once
// Host side of the harness's own device kernels (verify/gpu/support_kernels.cuh): seeded
// fills, poisoning, the element-wise comparison of whole buffers and strided views, guard
// bands, the outside-the-views check and the shared-memory scribble.
// Launch contract of those kernels: any grid, 256 threads per block, grid-stride loops.
#include <array>
#include <cuda.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model/dtype.hpp"
#include "cuda/device_buffer.hpp"
#include "exec/protocol/element_walk.hpp"
#include "exec/protocol/job.hpp"
#include "verify/gpu/buffer_comparison.hpp"
#include "verify/gpu/precision_rule.hpp"

namespace ako::verify {

// Resolves a support kernel by its key in exec::SupportModule::functions ("fill_normal:bf16",
// "poison:fp16", "compare:fp32", ...).
using SupportLookup = std::function<CUfunction(const std::string& key)>;

class SupportKernels {
 public:
  SupportKernels(SupportLookup lookup, int sm_count);

  // Fresh values per BufferJob::init ("normal": mean a, stddev b; "uniform": [a, b); "range":
  // integers in [low, high)). Throws ako::Error for an unknown distribution, a distribution
  // that does not suit the dtype, or a range that does not fit it.
  void fill(const exec::BufferJob& b, CUdeviceptr p, uint64_t seed, CUstream stream);
  // Values no correct kernel leaves behind (all bits set: NaN, or -1 for integers) over the
  // walk's elements of the storage at `base`, so an unwritten element cannot pass.
  void poison(DType t, CUdeviceptr base, const exec::ElementWalk& walk, CUstream stream);
  // The walk's elements of got vs the same elements of want (two copies of one storage) on the
  // GPU; integers exactly. Synchronises the stream to read the statistics back.
  BufferComparison compare(DType t, CUdeviceptr got, CUdeviceptr want, const exec::ElementWalk& walk,
                           const exec::Tolerance& tol, CUstream stream);

  // The precision check (support_compare.cpp): n elements of a floating storage at `src`
  // widened into doubles at `dst` (asynchronous) ...
  void widen(DType t, CUdeviceptr src, CUdeviceptr dst, uint64_t n, CUstream stream);
  // ... and the walk's elements of the reference's and the solution's output (storage copies of
  // one buffer, dtype t) against the same elements of the oracle's fp64 copy, in one pass: one
  // OracleError each, one launch, one read-back. Synchronises.
  std::array<OracleError, 2> oracle_errors(DType t, CUdeviceptr reference_out, CUdeviceptr solution_out,
                                           CUdeviceptr oracle, const exec::ElementWalk& walk, CUstream stream);

  // Guard bands: one region = n bytes at p holding the pattern of `salt`.
  struct GuardRegion {
    CUdeviceptr p = 0;
    uint64_t bytes = 0;
    uint64_t salt = 0;
  };
  struct GuardCounts {
    uint64_t changed = 0, first = 0, last = 0;   // first / last changed offset when changed > 0
  };
  void guard_fill(const GuardRegion& g, CUstream stream);
  // Checks every region (one launch each), reads the counts back with one copy; synchronises.
  std::vector<GuardCounts> guard_check(const std::vector<GuardRegion>& regions, CUstream stream);
  // Elements of the storage copy `got` (n elements) outside every view of `views` (each in
  // exec::membership_order, at most exec::kMaxViewsPerStorage) whose bits differ from `pristine`;
  // first / last are element indices. Synchronises.
  GuardCounts check_outside(DType t, CUdeviceptr got, CUdeviceptr pristine, uint64_t n,
                            const std::vector<exec::ElementWalk>& views, CUstream stream);

  // Writes `pattern` over the dynamic shared memory of one maximal block per SM, so the next
  // kernel's uninitialised shared memory holds it (the determinism check's two patterns).
  void scribble_shared(uint32_t pattern, CUstream stream);

  // The cold-L2 flush's read kernel (measure/gpu/l2_flush.hpp).
  CUfunction l2_evict_function() const { return lookup_("l2_evict:u64"); }
  // The SM clock in MHz, from a probe kernel that spins about 50 us; synchronises.
  double clock_mhz(CUstream stream);

  // Seed of buffer `buffer_index` in a trial: distinct per buffer, so x and weight never
  // receive the same random stream.
  static uint64_t buffer_seed(uint64_t trial_seed, int buffer_index);

 private:
  CUfunction function(const std::string& op, DType t) const;
  void launch(const std::string& key, CUfunction fn, uint64_t n, void** params, CUstream stream) const;

  SupportLookup lookup_;
  int sm_count_;
  cuda::DeviceBuffer stats_;   // AkoCompareStats of the comparison in flight
  cuda::DeviceBuffer guard_stats_;   // 3 x u64 per guard region (or outside check) in flight
  int scribble_bytes_ = -1;          // dynamic shared memory of the scribble; -1: not set up yet
  cuda::DeviceBuffer clock_out_;     // ns and cycles of the clock probe
  cuda::DeviceBuffer oracle_stats_;  // AkoOracleStats of the precision check's reductions in flight
};

}  // namespace ako::verify
