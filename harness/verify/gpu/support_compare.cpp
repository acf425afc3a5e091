// The support kernels that walk a compared unit's elements (AkoView): poisoning, the
// element-wise comparison, the check that nothing outside a storage's writable views changed,
// and the precision check's widening to fp64 and reduction against the oracle.
#include <array>
#include <cstring>

#include "common/error.hpp"
#include "cuda/fault.hpp"
#include "exec/protocol/buffer_plan.hpp"
#include "verify/gpu/compare_stats.h"
#include "verify/gpu/support_launcher.hpp"

namespace ako::verify {

namespace {

AkoView device_view(const exec::ElementWalk& w) {
  if (w.extents.empty() || w.extents.size() > exec::kMaxWalkRank || w.strides.size() != w.extents.size())
    throw Error("a support kernel takes 1 to 4 view dimensions, got " + std::to_string(w.extents.size()));
  AkoView v;
  std::memset(&v, 0, sizeof v);
  v.offset = w.offset;
  v.count = w.count();
  v.rank = static_cast<int>(w.extents.size());
  for (size_t k = 0; k < w.extents.size(); ++k) {
    v.extents[k] = w.extents[k];
    v.strides[k] = w.strides[k];
  }
  return v;
}

BufferComparison from_device(const AkoCompareStats& s) {
  BufferComparison c;
  c.checked = s.checked;
  c.mismatches = s.mismatches;
  c.nonfinite = s.nonfinite;
  c.want_nonfinite = s.want_nonfinite;
  c.max_abs = s.max_abs;
  c.max_rel = s.max_rel;
  c.worst_index = s.checked ? static_cast<int64_t>(s.worst_index) : -1;
  c.worst_got = s.worst_got;
  c.worst_want = s.worst_want;
  c.got_varying = s.got_varying;
  c.want_varying = s.want_varying;
  return c;
}

// ako_check_outside compares words of the element's size: bits, whatever the type.
std::string word_key(DType t) {
  switch (dtype_size(t)) {
    case 2: return "check_outside:u16";
    case 4: return "check_outside:u32";
    default: return "check_outside:u64";
  }
}

}  // namespace

void SupportKernels::poison(DType t, CUdeviceptr base, const exec::ElementWalk& walk, CUstream stream) {
  AkoView v = device_view(walk);
  void* params[] = {&base, &v};
  launch("poison:" + std::string(dtype_name(t)), function("poison", t), v.count, params, stream);
}

BufferComparison SupportKernels::compare(DType t, CUdeviceptr got, CUdeviceptr want, const exec::ElementWalk& walk,
                                         const exec::Tolerance& tol, CUstream stream) {
  if (!stats_) stats_ = cuda::DeviceBuffer(sizeof(AkoCompareStats), "compare statistics");
  cuda::check(cuMemsetD8Async(stats_.get(), 0, sizeof(AkoCompareStats), stream),
              "cuMemsetD8Async(compare statistics)");
  AkoView v = device_view(walk);
  float atol = static_cast<float>(tol.atol), rtol = static_cast<float>(tol.rtol);
  CUdeviceptr stats = stats_.get();
  void* params[] = {&got, &want, &v, &atol, &rtol, &stats};
  launch("compare:" + std::string(dtype_name(t)), function("compare", t), v.count, params, stream);
  AkoCompareStats host{};
  cuda::check(cuMemcpyDtoHAsync(&host, stats_.get(), sizeof host, stream),
              "cuMemcpyDtoHAsync(compare statistics)");
  cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(compare)");
  return from_device(host);
}

void SupportKernels::widen(DType t, CUdeviceptr src, CUdeviceptr dst, uint64_t n, CUstream stream) {
  unsigned long long count = n;
  void* params[] = {&src, &dst, &count};
  launch("widen:" + std::string(dtype_name(t)), function("widen", t), n, params, stream);
}

std::array<OracleError, 2> SupportKernels::oracle_errors(DType t, CUdeviceptr reference_out, CUdeviceptr solution_out,
                                                         CUdeviceptr oracle, const exec::ElementWalk& walk,
                                                         CUstream stream) {
  const size_t bytes = 2 * sizeof(AkoOracleStats);
  if (oracle_stats_.bytes() < bytes) oracle_stats_ = cuda::DeviceBuffer(bytes, "oracle error statistics");
  cuda::check(cuMemsetD8Async(oracle_stats_.get(), 0, bytes, stream), "cuMemsetD8Async(oracle error statistics)");
  AkoView v = device_view(walk);
  const std::string key = "oracle_error:" + std::string(dtype_name(t));
  const CUfunction fn = function("oracle_error", t);
  CUdeviceptr stats = oracle_stats_.get();
  void* params[] = {&reference_out, &solution_out, &oracle, &v, &stats};
  launch(key, fn, v.count, params, stream);
  AkoOracleStats host[2];
  cuda::check(cuMemcpyDtoHAsync(host, oracle_stats_.get(), bytes, stream), "cuMemcpyDtoHAsync(oracle error statistics)");
  cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(oracle error)");
  std::array<OracleError, 2> out;
  for (int i = 0; i < 2; ++i) {
    const AkoOracleStats& s = host[i];
    out[i] = OracleError{s.count, s.got_nonfinite, s.oracle_nonfinite, s.sum_sq_err, s.max_abs_err, s.sum_sq_oracle,
                         s.max_abs_oracle};
  }
  return out;
}

SupportKernels::GuardCounts SupportKernels::check_outside(DType t, CUdeviceptr got, CUdeviceptr pristine, uint64_t n,
                                                          const std::vector<exec::ElementWalk>& views,
                                                          CUstream stream) {
  if (views.size() > exec::kMaxViewsPerStorage)
    throw Error("the outside-the-views check takes at most 8 views, got " + std::to_string(views.size()));
  AkoViewSet set;
  std::memset(&set, 0, sizeof set);
  set.count = static_cast<int>(views.size());
  for (size_t i = 0; i < views.size(); ++i) set.views[i] = device_view(views[i]);
  const size_t bytes = 3 * sizeof(unsigned long long);
  if (guard_stats_.bytes() < bytes) guard_stats_ = cuda::DeviceBuffer(bytes, "guard statistics");
  cuda::check(cuMemsetD8Async(guard_stats_.get(), 0, bytes, stream), "cuMemsetD8Async(outside statistics)");
  unsigned long long count = n;
  CUdeviceptr stats = guard_stats_.get();
  void* params[] = {&got, &pristine, &count, &set, &stats};
  const std::string key = word_key(t);
  launch(key, lookup_(key), n, params, stream);
  unsigned long long host[3] = {0, 0, 0};
  cuda::check(cuMemcpyDtoHAsync(host, stats, bytes, stream), "cuMemcpyDtoHAsync(outside statistics)");
  cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(outside check)");
  return GuardCounts{host[0], ~host[1], host[2]};
}

}  // namespace ako::verify
