#include "exec/worker/oracle_check.hpp"

#include <limits>

#include "cuda/device_buffer.hpp"
#include "cuda/fault.hpp"
#include "exec/protocol/element_walk.hpp"
#include "exec/worker/case_inputs.hpp"
#include "exec/worker/write_checks.hpp"
#include "verify/gpu/host_compare.hpp"
#include "verify/gpu/host_download.hpp"

namespace ako::exec {

namespace {

// A host copy of one storage: doubles for a floating type, int64 for an integer one.
struct HostStorage {
  std::vector<double> f;
  std::vector<int64_t> i;
};

// The oracle's copy of each storage, and the addresses its arguments get (views inside them).
struct OracleBuffers {
  std::vector<cuda::DeviceBuffer> storages;
  std::vector<CUdeviceptr> args;
};

// What one element of `b` takes in the oracle's copy: floating types widen to double.
size_t oracle_element_bytes(const BufferJob& b) { return dtype_is_integer(b.dtype) ? dtype_size(b.dtype) : sizeof(double); }

// The contents the reference starts from: every present in / inout storage (inout: the pristine copy).
std::vector<HostStorage> snapshot_inputs(const CaseJob& job, const CaseBuffers& buffers, CUstream stream) {
  std::vector<HostStorage> out(job.buffers.size());
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || b.view || b.role == BufferRole::out) continue;
    const CUdeviceptr p = b.role == BufferRole::inout ? buffers.pristine(0)[i] : buffers.args(Side::reference, 0)[i];
    if (dtype_is_integer(b.dtype)) out[i].i = verify::download_integers(p, b.dtype, b.count, stream);
    else out[i].f = verify::download_as_double(p, b.dtype, b.count, stream);
  }
  return out;
}

// Out views inside an inout storage start poisoned, as the reference's did (prepare_launch).
void poison_out_views(const BufferPlan& plan, int storage, HostStorage& h) {
  for (const BufferWalk& v : plan.poisoned_views) {
    if (v.storage != storage) continue;
    for (uint64_t j = 0; j < v.walk.count(); ++j) {
      const size_t e = static_cast<size_t>(element_at(v.walk, j));
      if (!h.f.empty()) h.f[e] = std::numeric_limits<double>::quiet_NaN();
      if (!h.i.empty()) h.i[e] = -1;
    }
  }
}

// One storage's oracle copy filled from the host: doubles as they are, integers narrowed back to their type.
void upload_storage(const BufferJob& b, const HostStorage& h, CUdeviceptr p, CUstream stream) {
  if (!dtype_is_integer(b.dtype)) return verify::upload(p, h.f.data(), h.f.size() * sizeof(double), stream);
  if (b.dtype == DType::i64) return verify::upload(p, h.i.data(), h.i.size() * sizeof(int64_t), stream);
  const std::vector<int32_t> narrow(h.i.begin(), h.i.end());   // they came from int32 values
  verify::upload(p, narrow.data(), narrow.size() * sizeof(int32_t), stream);
}

OracleBuffers oracle_buffers(const CaseJob& job, const BufferPlan& plan, std::vector<HostStorage> snapshot,
                             CUstream stream) {
  OracleBuffers o;
  o.args.assign(job.buffers.size(), 0);
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (!b.present || b.view) continue;
    cuda::DeviceBuffer& d = o.storages.emplace_back(b.count * oracle_element_bytes(b), b.name + ", oracle copy");
    o.args[i] = d.get();
    if (b.role == BufferRole::out) {
      // All bits set: NaN in double, -1 in integers; the oracle must write every element.
      cuda::check(cuMemsetD8Async(d.get(), 0xFF, d.bytes(), stream), "cuMemsetD8Async(oracle " + b.name + ")");
      continue;
    }
    poison_out_views(plan, static_cast<int>(i), snapshot[i]);
    upload_storage(b, snapshot[i], d.get(), stream);
  }
  for (size_t i = 0; i < job.buffers.size(); ++i) {
    const BufferJob& b = job.buffers[i];
    if (b.present && b.view && o.args[b.view->of])
      o.args[i] = o.args[b.view->of] + static_cast<CUdeviceptr>(b.view->offset) * oracle_element_bytes(job.buffers[b.view->of]);
  }
  return o;
}

// Every compared unit: the reference's elements against the oracle's, gathered on the host.
void compare_with_oracle(const CaseJob& job, const CaseBuffers& buffers, const OracleBuffers& oracle,
                         CUstream stream, verify::ErrorAccumulator& acc) {
  for (const BufferWalk& u : buffers.plan().compared) {
    const BufferJob& b = job.buffers[u.buffer];
    const BufferJob& st = job.buffers[u.storage];
    const CUdeviceptr got = buffers.args(Side::reference, 0)[u.storage], want = oracle.args[u.storage];
    if (dtype_is_integer(st.dtype)) {
      acc.add(verify::compare_exactly_on_host(gather(verify::download_integers(got, st.dtype, st.count, stream), u.walk),
                                              gather(verify::download_integers(want, st.dtype, st.count, stream), u.walk)),
              b.name, b.tolerance, true);
      continue;
    }
    acc.add(verify::compare_on_host(gather(verify::download_as_double(got, st.dtype, st.count, stream), u.walk),
                                    gather(verify::download_doubles(want, st.count, stream), u.walk), b.tolerance),
            b.name, b.tolerance, false);
  }
}

}  // namespace

ValidationOutcome validate_reference_against_oracle(const CaseJob& job, const CaseBuffers& buffers,
                                                    const BoundLaunch& reference, CUfunction oracle,
                                                    const ValidationContext& ctx) {
  ValidationOutcome out;
  verify::ErrorAccumulator& acc = out.acc;
  for (int t = 0; t < job.trials; ++t) {
    *ctx.stage = trial_stage(t, job.trials, "inputs");
    fill_inputs(job, buffers, 0, job.seed + t, ctx.support, ctx.stream);
    std::vector<HostStorage> snapshot = snapshot_inputs(job, buffers, ctx.stream);
    prepare_launch(job, buffers, Side::reference, 0, ctx.support, ctx.stream);
    *ctx.stage = trial_stage(t, job.trials, "reference");
    run_kernel(reference, ctx);
    *ctx.stage = trial_stage(t, job.trials, "the reference's guard bands and views");
    if ((out.finding = check_reference_writes(job, buffers, 0, ctx))) return out;
    *ctx.stage = trial_stage(t, job.trials, "fp64 oracle");
    const OracleBuffers ob = oracle_buffers(job, buffers.plan(), std::move(snapshot), ctx.stream);
    const BoundLaunch launch(oracle, *job.oracle, ob.args, "oracle");
    run_kernel(launch, ctx);
    *ctx.stage = trial_stage(t, job.trials, "compare with the fp64 oracle");
    compare_with_oracle(job, buffers, ob, ctx.stream, acc);
  }
  return out;
}

}  // namespace ako::exec
