#include "measure/gpu/cupti_timer.hpp"

#include <algorithm>
#include <vector>

#include "common/error.hpp"
#include "exec/worker/fault.hpp"
#include "measure/gpu/sampling.hpp"
#include "measure/stats/stats.hpp"

namespace ako::measure {

namespace {

// Samples between forced flushes: a flush costs 0.05-0.8 ms (cuda_tech.md §3), so one per
// sample would dominate the wall time of small kernels.
constexpr int kSamplesPerFlush = 16;

struct Window {
  uint64_t t0_ns = 0, t1_ns = 0;
};

struct Charge {
  double gpu_us = 0;
  int kernels = 0;
  std::vector<ActivityRecord> records;   // everything that started inside the window
};

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
  if (!fallen_back_) {
    try {
      return time_with_cupti(launch, stream, opt, hooks);
    } catch (const Error& e) {  // CUPTI trouble; a CUDA fault (exec::CudaFault) propagates
      fallen_back_ = true;
      note_ = std::string("CUPTI failed during timing, using CUDA events: ") + e.what();
      activity_.reset();
    }
  }
  return events_.time(launch, stream, opt, hooks);
}

TimingStats CuptiTimer::time_with_cupti(const LaunchFn& launch, CUstream stream,
                                        const exec::TimingOptions& opt, const SampleHooks& hooks) {
  if (!opt.hot && !flush_) flush_ = std::make_unique<L2Flush>(l2_bytes_);
  L2Flush* flush = opt.hot ? nullptr : flush_.get();
  const int warmup = warm_up(launch, stream, opt, flush, hooks);

  // Forget the warm-up's records and everything launched before (validation kernels).
  activity_->flush();
  activity_->take_records();
  const uint64_t dropped_before = activity_->dropped_records();

  std::vector<double> samples_us;
  int kernels = 0;
  LaunchAudit audit;
  StopDecision decision;
  const auto t_start = Clock::now();
  while (!decision.stop) {
    const int first_batch = std::max(opt.min_samples, kMinSamplesForCi);
    int batch = samples_us.empty() ? first_batch : kSamplesPerFlush;
    batch = std::max(1, std::min<int>(batch, opt.max_samples - static_cast<int>(samples_us.size())));

    std::vector<Window> windows;
    for (int i = 0; i < batch; ++i) {
      prepare_sample(stream, flush, hooks);
      exec::check(cuStreamSynchronize(stream), "cuStreamSynchronize(before sample)");
      Window w;
      w.t0_ns = activity_->now_ns();
      launch_checked(launch, stream);
      exec::check(cuStreamSynchronize(stream), "cuStreamSynchronize(after sample)");
      w.t1_ns = activity_->now_ns();
      windows.push_back(w);
    }

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

    for (const Charge& c : charges) {
      samples_us.push_back(c.gpu_us);
      kernels += c.kernels;
      if (hooks.declared) audit.add(c.records, *hooks.declared);
    }
    decision = should_stop(samples_us, seconds_since(t_start), opt);
  }
  const double per_sample = static_cast<double>(kernels) / static_cast<double>(samples_us.size());
  TimingStats stats = finish_stats(std::move(samples_us), method(), opt, warmup, decision.stable, per_sample);
  stats.launch_audit = audit.summary();
  return stats;
}

}  // namespace ako::measure
