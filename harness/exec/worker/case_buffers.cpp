#include "exec/worker/case_buffers.hpp"

namespace ako::exec {

CaseBuffers::CaseBuffers(const CaseJob& job, bool with_solution) {
  for (const BufferJob& b : job.buffers) {
    CUdeviceptr ref = 0, sol = 0;
    if (b.present) {
      const size_t bytes = b.count * dtype_size(b.dtype);
      if (b.role == BufferRole::output) {
        ref = owned_.emplace_back(bytes, b.name + ", reference copy").get();
        if (with_solution) sol = owned_.emplace_back(bytes, b.name + ", solution copy").get();
      } else {
        ref = sol = owned_.emplace_back(bytes, b.name).get();
      }
    }
    reference_view_.push_back(ref);
    solution_view_.push_back(sol);
  }
}

}  // namespace ako::exec
