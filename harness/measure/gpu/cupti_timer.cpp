#include "measure/gpu/cupti_timer.hpp"

#include <algorithm>
#include <cmath>
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

// A window without the record its work must leave: a kernel record, or any record for work
// that is not a kernel (TimedKernel::kernel_record).
bool any_empty(const std::vector<Charge>& charges, const std::vector<bool>& kernel_record) {
  for (size_t i = 0; i < charges.size(); ++i)
    if (kernel_record[i] ? charges[i].kernels == 0 : charges[i].records.empty()) return true;
  return false;
}

// passes_agree over one kernel's samples, pass by pass (`starts`: where each pass began).
bool passes_agree_in(const std::vector<double>& samples, const std::vector<size_t>& starts,
                     const exec::TimingOptions& opt) {
  std::vector<double> iqms;
  for (size_t p = 0; p < starts.size(); ++p) {
    const size_t end = p + 1 < starts.size() ? starts[p + 1] : samples.size();
    if (end <= starts[p]) continue;
    std::vector<double> part(samples.begin() + static_cast<std::ptrdiff_t>(starts[p]),
                             samples.begin() + static_cast<std::ptrdiff_t>(end));
    iqms.push_back(iqm_interval(part).iqm);
  }
  std::vector<double> all = samples;
  return passes_agree(iqms, iqm_interval(all).iqm, opt.target_ci_rel);
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

std::vector<Charge> CuptiTimer::collect_charges(const std::vector<Window>& windows, const std::vector<bool>& kernel_record,
                                                uint64_t dropped_before) {
  activity_->flush();
  std::vector<ActivityRecord> spans = activity_->take_records();
  auto charges = charge_windows(windows, spans);
  if (any_empty(charges, kernel_record)) {  // a record may still be in flight inside CUPTI: one more flush
    activity_->flush();
    auto late = activity_->take_records();
    spans.insert(spans.end(), late.begin(), late.end());
    charges = charge_windows(windows, spans);
  }
  if (any_empty(charges, kernel_record)) throw Error("no CUPTI kernel record arrived for a sample");
  if (const uint64_t dropped = activity_->dropped_records() - dropped_before)
    throw Error("CUPTI dropped " + std::to_string(dropped) + " activity records");
  return charges;
}

void CuptiTimer::sample_pass(Sampling& s, CUstream stream, L2Flush* flush, uint64_t dropped_before, bool fire_hooks,
                             const std::function<int(bool)>& rounds_of_batch,
                             const std::function<StopDecision(size_t, double)>& decide) {
  const auto t_start = Clock::now();
  double hooks_s = 0;
  const long first_round = s.round;
  while (!s.done()) {
    const int rounds = rounds_of_batch(s.round == first_round);
    std::vector<Window> windows;
    const std::vector<size_t> owner = sample_batch(s, rounds, stream, flush, windows);
    if (const double mhz = probe_clock(stream); mhz > 0) s.clock_mhz.push_back(mhz);
    std::vector<bool> kernel_record(owner.size());
    for (size_t i = 0; i < owner.size(); ++i) kernel_record[i] = s.kernels[owner[i]].kernel_record;
    const std::vector<Charge> charges = collect_charges(windows, kernel_record, dropped_before);
    for (size_t i = 0; i < charges.size(); ++i) {
      const size_t k = owner[i];
      s.samples[k].push_back(charges[i].gpu_us);
      if (s.kernels[k].hooks.raw_samples) s.kernels[k].hooks.raw_samples->push_back(charges[i].gpu_us);
      s.kernel_records[k] += charges[i].kernels;
      if (s.kernels[k].hooks.declared) s.audits[k].add(charges[i].records, *s.kernels[k].hooks.declared);
    }
    const double elapsed_s = seconds_since(t_start) - hooks_s;
    std::vector<size_t> stopped;
    for (size_t k = 0; k < s.kernels.size(); ++k) {
      if (s.decisions[k].stop) continue;
      s.decisions[k] = decide(k, elapsed_s);
      if (s.decisions[k].stop) stopped.push_back(k);
    }
    if (!fire_hooks) continue;
    // The hooks' own work (the solution's re-check) is not charged to the wall budget.
    const auto t_hooks = Clock::now();
    for (size_t k : stopped)
      if (s.kernels[k].hooks.after_last_sample) s.kernels[k].hooks.after_last_sample(stream);
    hooks_s += seconds_since(t_hooks);
  }
}

void CuptiTimer::open_pass(const std::vector<TimedKernel>& kernels, const std::vector<bool>& sampling,
                           const std::vector<int>& pass_samples, CUstream stream, L2Flush* flush) {
  std::vector<int> counts, cycles;
  std::vector<size_t> which;
  for (size_t k = 0; k < kernels.size(); ++k)
    if (sampling[k]) {
      which.push_back(k);
      counts.push_back(pass_samples[k]);
      cycles.push_back(kernels[k].hooks.launch_cycle);
    }
  const std::vector<int> launches = launches_to_open_pass(counts, cycles);
  for (size_t i = 0; i < which.size(); ++i) {
    const TimedKernel& kernel = kernels[which[i]];
    for (int l = 0; l < launches[i]; ++l) {
      prepare_sample(stream, flush, kernel.hooks);
      launch_checked(kernel.launch, stream);
      if (kernel.hooks.raw_samples) kernel.hooks.raw_samples->push_back(std::nan(""));  // keeps the log aligned
    }
  }
  cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(between sampling passes)");
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
  // Sampling passes (measure/stats/stats.hpp): the first until its stopping rule, each later
  // one as many samples as the first took, opened by untimed launches (open_pass); after
  // kSamplingPasses, a kernel whose passes disagree gets another while the budget lasts. The
  // statistics pool every pass; after_last_sample fires at the end of every pass from the
  // kSamplingPasses-th on (the solution's re-check then sees each pass's last output).
  const size_t n = kernels.size();
  std::vector<int> first_n(n);
  std::vector<bool> stable(n), agreed(n, true), sampling(n, true);
  std::vector<std::vector<size_t>> pass_starts(n);
  const auto t_case = Clock::now();
  for (int pass = 0; pass < kMaxSamplingPasses; ++pass) {
    if (pass >= kSamplingPasses) {
      // Another pass for the kernels whose passes disagree, if the budget has room for one.
      const bool room = seconds_since(t_case) * (1.0 + 1.0 / pass) < budget.max_time_s;
      for (size_t k = 0; k < n; ++k) sampling[k] = !agreed[k] && room;
      if (std::none_of(sampling.begin(), sampling.end(), [](bool b) { return b; })) break;
    }
    if (pass > 0) {
      std::vector<int> last_pass(n);
      for (size_t k = 0; k < n; ++k) last_pass[k] = static_cast<int>(s.samples[k].size() - pass_starts[k].back());
      open_pass(kernels, sampling, last_pass, stream, flush);
      activity_->flush();
      activity_->take_records();
    }
    for (size_t k = 0; k < n; ++k) {
      pass_starts[k].push_back(s.samples[k].size());
      s.decisions[k] = sampling[k] ? StopDecision{} : StopDecision{true, stable[k]};
    }
    auto pass_count = [&](size_t k) { return static_cast<int>(s.samples[k].size() - pass_starts[k].back()); };
    // A batch: the first of the first pass gives the CI its floor of samples; a later pass's
    // batches stop short where every kernel still sampling has its count.
    auto rounds_of_batch = [&](bool first_batch) {
      const int usual = first_batch ? std::max(opt.min_samples, kMinSamplesForCi) : kSamplesPerFlush;
      if (pass == 0) return usual;
      int most_left = 1;
      for (size_t k = 0; k < n; ++k)
        if (!s.decisions[k].stop) most_left = std::max(most_left, first_n[k] - pass_count(k));
      return std::min(usual, most_left);
    };
    sample_pass(s, stream, flush, dropped_before, pass + 1 >= kSamplingPasses, rounds_of_batch,
                [&](size_t k, double elapsed_s) {
                  if (pass == 0) return should_stop(s.samples[k], elapsed_s, budget, kSamplingPasses);
                  return StopDecision{later_pass_done(pass_count(k), first_n[k], elapsed_s, budget, kSamplingPasses),
                                      stable[k]};
                });
    for (size_t k = 0; k < n; ++k) {
      if (pass == 0) {
        first_n[k] = pass_count(k);
        stable[k] = s.decisions[k].stable;
      }
      if (pass + 1 >= kSamplingPasses && sampling[k]) agreed[k] = passes_agree_in(s.samples[k], pass_starts[k], opt);
    }
  }
  // A kernel whose passes still disagree when they run out is not stable.
  for (size_t k = 0; k < n; ++k) s.decisions[k].stable = stable[k] && agreed[k];
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
