#include "exec/worker/case_inputs.hpp"

#include "cuda/fault.hpp"

namespace ako::exec {

void fill_inputs(const CaseJob& job, const CaseBuffers& buffers, int set, uint64_t seed,
                 verify::SupportKernels& support, CUstream stream) {
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || b.view || b.role == BufferRole::out) continue;
    // An inout storage's fresh contents go to its pristine copy; each launch restores from it.
    const CUdeviceptr p = b.role == BufferRole::inout ? buffers.pristine(set)[i] : buffers.args(Side::reference, set)[i];
    support.fill(b, p, verify::SupportKernels::buffer_seed(seed, static_cast<int>(i)), stream);
  }
}

void prepare_launch(const CaseJob& job, const CaseBuffers& buffers, Side side, int set,
                    verify::SupportKernels& support, CUstream stream) {
  const std::vector<CUdeviceptr>& args = buffers.args(side, set);
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || b.view) continue;
    if (b.role == BufferRole::out)
      // All bits set: NaN in bf16, fp16 and fp32, -1 in integers (what ako_poison writes).
      cuda::check(cuMemsetD8Async(args[i], 0xFF, storage_bytes(b), stream), "cuMemsetD8Async(poison " + b.name + ")");
    else if (b.role == BufferRole::inout)
      cuda::check(cuMemcpyDtoDAsync(args[i], buffers.pristine(set)[i], storage_bytes(b), stream),
                  "cuMemcpyDtoDAsync(restore " + b.name + ")");
  }
  // After the restore, which would otherwise hand the kernel fresh contents where it must write.
  for (const BufferWalk& v : buffers.plan().poisoned_views)
    support.poison(job.buffers[v.storage].dtype, args[v.storage], v.walk, stream);
}

}  // namespace ako::exec
