#include "gate/update.hpp"

#include "common/error.hpp"
#include "gate/case_key.hpp"
#include "gate/compare.hpp"

namespace ako::gate {

namespace {

std::optional<BaselineTiming> timing_of(const std::optional<TimingStats>& t) {
  if (!t || t->samples == 0) return std::nullopt;
  BaselineTiming b;
  b.median_us = t->median_us;
  b.samples = t->samples;
  b.method = t->method;
  b.cold_l2 = t->cold_l2;
  if (t->centre_is_median) {
    b.ci_rel = t->median_ci_rel;  // a result from before the IQM: recorded as it was timed
  } else {
    b.iqm_us = t->iqm_us;
    b.ci_rel = t->ci_rel;
  }
  return b;
}

std::map<std::string, std::map<std::string, BaselineKernel>> kernels_of(const RunResult& r) {
  std::map<std::string, std::map<std::string, BaselineKernel>> out;
  for (const auto& k : r.builds)
    if (k.role == "reference" || k.role == "solution") out[k.role][k.name_expression] = {k.file, budget_of(k.resources)};
  return out;
}

}  // namespace

Baseline updated_baseline(const Baseline* old, const std::vector<TaskOutcome>& outcomes, const BaselineStamp& stamp) {
  Baseline b = old ? *old : Baseline{};
  b.written_by = stamp.written_by;
  b.updated_at = stamp.updated_at;
  b.cuda_version = stamp.cuda_version;
  b.nvrtc_version = stamp.nvrtc_version;

  const TaskOutcome* gpu = nullptr;
  for (const auto& o : outcomes)
    if (o.ran_on_gpu) gpu = &o;

  if (gpu) {
    const DeviceInfo& d = gpu->result.device;
    const bool same_device = old && old->device && old->device->name == d.name;
    if (old && old->device && !same_device)
      for (const auto& [name, t] : old->tasks) {
        bool refreshed = false;
        for (const auto& o : outcomes) refreshed = refreshed || o.task == name;
        if (!refreshed)
          throw Error("--update-baseline: task " + name + " keeps timings from " + old->device->name +
                      " while this run is on " + d.name + "; a baseline never mixes devices: select every task");
      }
    b.device = BaselineDevice{d.name, d.arch, d.driver_version, d.sm_count, d.copy_bandwidth_gbs};
    b.arch = stamp.arch;
    for (const auto& o : outcomes) {
      BaselineTask& t = b.tasks[o.task];
      t.cases.clear();
      for (const auto& c : o.result.cases) {
        BaselineCase bc;
        bc.kind = c.kind;
        bc.verdict = verdict_name(c.verdict);
        bc.solution = timing_of(c.solution_time);
        bc.reference = timing_of(c.reference_time);
        for (const auto& peer : c.baselines)
          if (auto t = timing_of(peer.time); t && peer.verdict == Verdict::correct) bc.peers[peer.name] = *t;
        t.cases[case_key(c)] = bc;
      }
      t.kernels = kernels_of(o.result);
    }
    return b;
  }

  if (b.has_timings() && !b.arch.empty() && b.arch != stamp.arch)
    throw Error("--update-baseline: the baseline's timings and budgets are for " + b.arch + "; compiling for " +
                stamp.arch + " would mix archs (drop --arch, or update on a GPU of that arch)");
  b.arch = stamp.arch;
  for (const auto& o : outcomes) b.tasks[o.task].kernels = kernels_of(o.result);
  return b;
}

}  // namespace ako::gate
