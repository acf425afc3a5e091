#pragma once
// The two comparisons at the heart of the gate, each pure and testable on its own.
#include "gate/baseline.hpp"
#include "gate/report.hpp"
#include "result/run_result.hpp"

namespace ako::gate {

struct TimingComparison {
  CheckStatus status = CheckStatus::pass;
  double base_us = 0, now_us = 0;  // the centres compared: IQMs, or medians for an entry timed before the IQM
  double change_pct = 0;   // (now / base - 1) * 100: positive is slower
  double noise_pct = 0;    // both runs' CI half-widths together, relative to the baseline's centre
  std::string detail;
};

// The smallest change in microseconds that counts as beyond the threshold (--min-change-us). Two
// H200s of one model ran rope's unchanged 2 us kernels 3.0-3.5% (60-70 ns) apart, each run's
// own CI about +-1% (bench/RESULTS.md, 2026-11-26 session 12 call 8): a relative threshold alone
// fails a 2 us kernel on the machine it lands on.
inline constexpr double kDefaultMinChangeUs = 0.1;

// A slowdown fails only when it is larger than the threshold AND larger than the noise measured
// in both runs (the 95% CIs do not overlap): a threshold alone fails on noise, noise alone fails
// on real but negligible changes. A change of at most min_change_us microseconds is within the
// threshold whatever its percentage. A large change inside the noise is a warning (re-run to
// settle it); a speed-up beyond both is reported as improved. The centres are the IQMs; a
// baseline timed before the IQM (base.before_iqm()) is compared with the run's median and its
// CI, like with like.
TimingComparison compare_timing(const BaselineTiming& base, const TimingStats& now, double threshold_pct,
                                double min_change_us = 0);

// Resources against a budget: registers, shared memory, spills and stack over budget fail; a
// kernel that had no spills (or no stack frame) and now has one fails as "starts spilling".
// Fields ptxas did not report (-1 on either side) are skipped and named in the detail.
struct ResourceComparison {
  CheckStatus status = CheckStatus::pass;
  std::string detail;
};
ResourceComparison compare_resources(const ResourceBudget& budget, const KernelResources& now);

// Budget from a fresh build (what --update-baseline records).
ResourceBudget budget_of(const KernelResources& r);

}  // namespace ako::gate
