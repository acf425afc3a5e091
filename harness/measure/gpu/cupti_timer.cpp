#include "measure/gpu/cupti_timer.hpp"

#include <algorithm>
#include <vector>

#include "common/error.hpp"
#include "cuda/fault.hpp"
#include "measure/gpu/sampling.hpp"
#include "measure/stats/stats.hpp"

namespace ako::measure {

namespace {

// Samples between forced flushes: a flush costs 0.05-0.8 ms (cuda_tech.md §3), so one per
// sample would dominate the wall time of small kernels.
constexpr int kSamplesPerFlush = 16;

using Window = CuptiTimer::Window;
using Charge = CuptiTimer::Charge;

// Every record (kernel, memcpy, memset) that starts inside a window is charged to it.
std::vector<Charge> charge_windows(const std::vector<Window>& windows, std::vector<ActivityRecord> records) {
  std::sort(records.begin(), records.end(), [](auto& a, auto& b) { return a.start_ns < b.start_ns; });
  std::vector<Charge> out(windows.size());
  for (size_t i = 0; i < windows.size(); ++i) {
    auto it = std::lower_bound(records.begin(), records.end(), windows[i].t0_ns,
                               [](const ActivityRecord& s, uint64_t t) { return s.start_ns < t; });
    for (; it != records.end() && it->start_ns <= windows[i].t1_ns; ++it) {
      out[i].gpu_us += static_cast<double>(it->end_ns - it->start_ns) * 1e-3;
      if (it->kind == ActivityRecord::Kind::kernel) ++out[i].kernels;
      out[i].records.push_back(*it);
    }
  }
  return out;
}

bool any_empty(const std::vector<Charge>& charges) {
  return std::any_of(charges.begin(), charges.end(), [](const Charge& c) { return c.kernels == 0; });
}

}  // namespace

CuptiTimer::CuptiTimer(std::size_t l2_bytes)
    : activity_(std::make_unique<CuptiActivity>()), l2_bytes_(l2_bytes), events_(l2_bytes) {}

TimingStats CuptiTimer::time(const LaunchFn& launch, CUstream stream, const exec::TimingOptions& opt,
                             const SampleHooks& hooks) {
  return time_interleaved({TimedKernel{launch, hooks}}, stream, opt, nullptr).front();
}

std::vector<TimingStats> CuptiTimer::time_interleaved(const std::vector<TimedKernel>& kernels, CUstream stream,
                                                      const exec::TimingOptions& opt, ClockReport* clock) {
  if (!fallen_back_) {
    try {
      return interleaved_with_cupti(kernels, stream, opt, clock);
    } catch (const Error& e) {  // CUPTI trouble; a CUDA fault (cuda::CudaFault) propagates
      fallen_back_ = true;
      note_ = std::string("CUPTI failed during timing, using CUDA events: ") + e.what();
      activity_.reset();
    }
  }
  events_.set_clock_probe(clock_probe_, rated_mhz_);
  events_.set_l2_evict_kernel(l2_evict_);
  return events_.time_interleaved(kernels, stream, opt, clock);
}

// The samples of every kernel, collected batch by batch; see Timer::time_interleaved.
struct CuptiTimer::Sampling {
  const std::vector<TimedKernel>& kernels;
  std::vector<std::vector<double>> samples;
  std::vector<int> kernel_records;
  std::vector<LaunchAudit> audits;
  std::vector<StopDecision> decisions;
  std::vector<double> clock_mhz;
  long round = 0;
  long batches = 0;

  explicit Sampling(const std::vector<TimedKernel>& k)
      : kernels(k), samples(k.size()), kernel_records(k.size()), audits(k.size()), decisions(k.size()) {}
  bool done() const {
    return std::all_of(decisions.begin(), decisions.end(), [](const StopDecision& d) { return d.stop; });
  }
};

// One batch: `rounds` rounds over the kernels still sampling, in rotating order; returns which
// kernel each window belongs to.
std::vector<size_t> CuptiTimer::sample_batch(Sampling& s, int rounds, CUstream stream, L2Flush* flush,
                                             std::vector<Window>& windows) {
  std::vector<size_t> owner;
  const size_t n = s.kernels.size();
  for (int r = 0; r < rounds; ++r, ++s.round) {
    for (size_t j = 0; j < n; ++j) {
      // The batch number shifts the rotation too: the first sample after a batch's host work
      // (charging, the clock probe) would otherwise always go to the same kernel.
      const size_t k = (static_cast<size_t>(s.round + s.batches) + j) % n;
      if (s.decisions[k].stop) continue;
      prepare_sample(stream, flush, s.kernels[k].hooks);
      cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(before sample)");
      Window w;
      w.t0_ns = activity_->now_ns();
      launch_checked(s.kernels[k].launch, stream);
      cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(after sample)");
      w.t1_ns = activity_->now_ns();
      windows.push_back(w);
      owner.push_back(k);
    }
  }
  ++s.batches;
  return owner;
}

std::vector<Charge> CuptiTimer::collect_charges(const std::vector<Window>& windows, uint64_t dropped_before) {
  activity_->flush();
  std::vector<ActivityRecord> spans = activity_->take_records();
  auto charges = charge_windows(windows, spans);
  if (any_empty(charges)) {  // a record may still be in flight inside CUPTI: one more flush
    activity_->flush();
    auto late = activity_->take_records();
    spans.insert(spans.end(), late.begin(), late.end());
    charges = charge_windows(windows, spans);
  }
  if (any_empty(charges)) throw Error("no CUPTI kernel record arrived for a sample");
  if (const uint64_t dropped = activity_->dropped_records() - dropped_before)
    throw Error("CUPTI dropped " + std::to_string(dropped) + " activity records");
  return charges;
}

std::vector<TimingStats> CuptiTimer::interleaved_with_cupti(const std::vector<TimedKernel>& kernels, CUstream stream,
                                                            const exec::TimingOptions& opt, ClockReport* clock) {
  if (!opt.hot && !flush_) flush_ = std::make_unique<L2Flush>(l2_bytes_, l2_evict_);
  L2Flush* flush = opt.hot ? nullptr : flush_.get();
  // Warm-up shared by the kernels (each launched at least warmup_runs times, warmup_ms in all),
  // then until the clock has ramped.
  const int warmup = warm_up_interleaved(kernels, stream, warm_up_options(opt), flush);
  ramp_clock(kernels, stream, flush);

  // Forget the warm-up's records and everything launched before (validation kernels).
  activity_->flush();
  activity_->take_records();
  const uint64_t dropped_before = activity_->dropped_records();

  Sampling s(kernels);
  // The wall budget is per kernel, so a case with a baseline gets the same precision.
  exec::TimingOptions budget = opt;
  budget.max_time_s = opt.max_time_s * static_cast<double>(kernels.size());
  const auto t_start = Clock::now();
  double hooks_s = 0;
  while (!s.done()) {
    const int rounds = s.round == 0 ? std::max(opt.min_samples, kMinSamplesForCi) : kSamplesPerFlush;
    std::vector<Window> windows;
    const std::vector<size_t> owner = sample_batch(s, rounds, stream, flush, windows);
    if (const double mhz = probe_clock(stream); mhz > 0) s.clock_mhz.push_back(mhz);
    const std::vector<Charge> charges = collect_charges(windows, dropped_before);
    for (size_t i = 0; i < charges.size(); ++i) {
      const size_t k = owner[i];
      s.samples[k].push_back(charges[i].gpu_us);
      if (kernels[k].hooks.raw_samples) kernels[k].hooks.raw_samples->push_back(charges[i].gpu_us);
      s.kernel_records[k] += charges[i].kernels;
      if (kernels[k].hooks.declared) s.audits[k].add(charges[i].records, *kernels[k].hooks.declared);
    }
    const double elapsed_s = seconds_since(t_start) - hooks_s;
    std::vector<size_t> stopped;
    for (size_t k = 0; k < kernels.size(); ++k) {
      if (s.decisions[k].stop) continue;
      s.decisions[k] = should_stop(s.samples[k], elapsed_s, budget);
      if (s.decisions[k].stop) stopped.push_back(k);
    }
    // The hooks' own work (the solution's re-check) is not charged to the wall budget.
    const auto t_hooks = Clock::now();
    for (size_t k : stopped)
      if (kernels[k].hooks.after_last_sample) kernels[k].hooks.after_last_sample(stream);
    hooks_s += seconds_since(t_hooks);
  }
  std::vector<TimingStats> out;
  for (size_t k = 0; k < kernels.size(); ++k) {
    const double n = static_cast<double>(s.samples[k].size());
    TimingStats stats = finish_stats(std::move(s.samples[k]), method(), opt, warmup, s.decisions[k].stable,
                                     static_cast<double>(s.kernel_records[k]) / n);
    stats.launch_audit = s.audits[k].summary();
    if (flush) stats.l2_flush = flush->clean() ? "read" : "memset";
    out.push_back(std::move(stats));
  }
  if (clock) *clock = clock_report(std::move(s.clock_mhz));
  mark_timed_end();
  return out;
}

}  // namespace ako::measure
