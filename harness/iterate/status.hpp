#pragma once
// How an iteration's run compares with another (the baseline, the best so far), noise-aware,
// and the status word the log gives it.
#include <optional>
#include <string>

#include "result/run_result.hpp"

namespace ako::iterate {

enum class Status { baseline, improved, no_change, regression, incorrect, failed };

const char* status_name(Status s);  // "no-change", ...
std::optional<Status> parse_status(const std::string& s);

// Run-to-run drift that one run's confidence interval cannot see (clocks, thermals): repeated
// runs of ako agree within about 1% (SPEC.md), so smaller differences are never called real.
inline constexpr double kNoiseFloorRel = 0.01;

// The two runs over the cases both timed with a correct solution (matched by case key).
struct RunComparison {
  int common_cases = 0;
  double now_us = 0, then_us = 0;  // sums of the solution IQMs over the common cases
  double noise_us = 0;             // both runs' IQM CI half-widths (at least the floor) summed
  int faster = 0, slower = 0, same = 0;  // per case, each against its own noise
  int on_medians = 0;              // common cases compared on medians: one run was timed before the IQM
  double speedup() const { return now_us > 0 ? then_us / now_us : 0; }  // > 1: now is faster
  bool within_noise() const;
};

RunComparison compare_runs(const RunResult& now, const RunResult& then, double floor_rel = kNoiseFloorRel);

// failed: not compiled, refused, crashed, skipped cases or no verdict; incorrect: some case
// incorrect; otherwise, against the best so far (none: the baseline): improved or regression
// when the total moved beyond the noise, else no-change.
Status classify(const RunResult& now, const RunResult* best);

// "correct", "incorrect" or "failed" (the commit body's correctness key); "skipped" when no
// case got a verdict (iterate refuses to record such a run).
std::string correctness_word(const RunResult& r);

}  // namespace ako::iterate
