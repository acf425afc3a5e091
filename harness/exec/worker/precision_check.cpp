#include "exec/worker/precision_check.hpp"

#include "cuda/fault.hpp"
#include "exec/worker/bound_launch.hpp"
#include "verify/gpu/precision_rule.hpp"

namespace ako::exec {

namespace {

// What one element of `b` takes in the oracle's copy: floating types widen to double.
size_t oracle_element_bytes(const BufferJob& b) {
  return dtype_is_integer(b.dtype) ? dtype_size(b.dtype) : sizeof(double);
}

// The contents both kernels start from: an in storage's (shared) copy, an inout storage's pristine copy.
CUdeviceptr source_of(const BufferJob& b, const CaseBuffers& buffers, int i) {
  return b.role == BufferRole::inout ? buffers.pristine(0)[i] : buffers.args(Side::reference, 0)[i];
}

}  // namespace

PrecisionCheck::PrecisionCheck(const CaseJob& job, ModuleCache& modules, CUstream stream) {
  const Clock::time_point t0 = Clock::now();
  oracle_ = modules.function(job.oracle->module, job.oracle->function);
  args_.assign(job.buffers.size(), 0);
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || b.view) continue;
    args_[i] = storages_.emplace_back(b.count * oracle_element_bytes(b), b.name + ", fp64 oracle copy").get();
    // Poisoned once: all bits set, NaN in double, -1 in integers. The oracle's launch and shape
    // are the same every trial, so an element it never writes stays poisoned and is reported
    // (oracle_nonfinite_reason) on the first trial.
    if (b.role == BufferRole::out)
      cuda::check(cuMemsetD8Async(args_[i], 0xFF, b.count * oracle_element_bytes(b), stream),
                  "cuMemsetD8Async(oracle " + b.name + ")");
  }
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (b.present && b.view && args_[b.view->of])
      args_[i] = args_[b.view->of] +
                 static_cast<CUdeviceptr>(b.view->offset) * oracle_element_bytes(job.buffers[b.view->of]);
  }
  cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(precision check allocation)");
  add_time(t0, "allocate");
}

void PrecisionCheck::take_inputs(const CaseJob& job, const CaseBuffers& buffers, int trial,
                                 const ValidationContext& ctx) {
  const Clock::time_point t0 = Clock::now();
  *ctx.stage = trial_stage(trial, job.trials, "fp64 oracle inputs");
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || b.view) continue;
    if (b.role == BufferRole::out) continue;   // poisoned when allocated
    const CUdeviceptr src = source_of(b, buffers, static_cast<int>(i)), dst = args_[i];
    if (dtype_is_integer(b.dtype))
      cuda::check(cuMemcpyDtoDAsync(dst, src, b.count * dtype_size(b.dtype), ctx.stream),
                  "cuMemcpyDtoDAsync(oracle " + b.name + ")");
    else
      ctx.support.widen(b.dtype, src, dst, b.count, ctx.stream);
  }
  // Out views inside inout storages start poisoned, as the kernels' did (prepare_launch); an
  // 8-byte all-ones word is a NaN double.
  for (const BufferWalk& v : buffers.plan().poisoned_views) {
    const BufferJob& st = job.buffers[v.storage];
    ctx.support.poison(dtype_is_integer(st.dtype) ? st.dtype : DType::i64, args_[v.storage], v.walk, ctx.stream);
  }
  cuda::check(cuStreamSynchronize(ctx.stream), "cuStreamSynchronize(oracle inputs)");
  add_time(t0, "inputs");
}

std::optional<Finding> PrecisionCheck::judge_trial(const CaseJob& job, const CaseBuffers& buffers, int trial,
                                                   const ValidationContext& ctx) {
  Clock::time_point t0 = Clock::now();
  *ctx.stage = trial_stage(trial, job.trials, "fp64 oracle (precision check)");
  const BoundLaunch oracle(oracle_, *job.oracle, args_, "oracle");
  run_kernel(oracle, ctx);
  t0 = add_time(t0, "oracle");
  *ctx.stage = trial_stage(trial, job.trials, "precision against the fp64 oracle");
  ++trials_judged_;
  std::optional<Finding> finding;
  for (const BufferWalk& u : buffers.plan().compared) {
    const BufferJob& b = job.buffers[u.buffer];
    const DType t = job.buffers[u.storage].dtype;
    if (dtype_is_integer(t)) continue;   // compared exactly with the reference already
    const std::array<verify::OracleError, 2> e =
        ctx.support.oracle_errors(t, buffers.args(Side::reference, 0)[u.storage],
                                  buffers.args(Side::solution, 0)[u.storage], args_[u.storage], u.walk, ctx.stream);
    const verify::OracleError &reference = e[0], &solution = e[1];
    if (reference.oracle_nonfinite) {
      finding = Finding{Verdict::incorrect, "",
                        verify::oracle_nonfinite_reason(b.name, reference.oracle_nonfinite, u.walk.count(),
                                                        trial + 1, job.trials)};
      break;
    }
    const verify::PrecisionVerdict v =
        verify::judge_precision(solution, reference, t, b.error_factor, b.name, trial + 1);
    if (!closest_ || !v.pass || verify::limit_fraction(v.report) > verify::limit_fraction(*closest_))
      closest_ = v.report;
    if (!v.pass) {
      finding = Finding{Verdict::incorrect, "", verify::precision_reason(v.report, job.trials, solution.got_nonfinite)};
      break;
    }
  }
  add_time(t0, "errors");
  return finding;
}

std::optional<PrecisionReport> PrecisionCheck::finish() {
  const Clock::time_point t0 = Clock::now();
  storages_.clear();
  args_.clear();
  add_time(t0, "free");
  if (!trials_judged_) return std::nullopt;
  PrecisionReport r = closest_.value_or(PrecisionReport{});   // empty: no floating output to judge
  r.trials_checked = trials_judged_;
  r.check_s = seconds_;
  r.check_parts_s = parts_;
  return r;
}

}  // namespace ako::exec
