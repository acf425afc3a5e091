#pragma once
// Recorded runs for the iterate tests, built in code so each test states the numbers it needs:
// one compare case per median, shapes s0, s1, ..., bf16 with weight, reference 1.5x slower.
#include <string>
#include <vector>

#include "result/run_result.hpp"

namespace ako::iterate::testing {

inline TimingStats timing(double median_us, double ci_rel) {
  TimingStats t;
  t.method = "cupti";
  t.samples = 50;
  t.iqm_us = t.median_us = t.mean_us = median_us;
  t.min_us = median_us * 0.98;
  t.max_us = median_us * 1.05;
  t.ci_rel = ci_rel;
  t.stable = true;
  return t;
}

// medians: the solution's per-case medians (us); every case correct unless `verdicts` says otherwise.
inline RunResult make_run(const std::vector<double>& medians, double ci_rel = 0.002,
                          const std::vector<Verdict>& verdicts = {}) {
  RunResult r;
  r.ako_version = "test";
  r.task = "demo";
  r.started_at = "2026-11-23T10:00:00Z";
  r.options = {{"seed", 42}, {"trials", 3}, {"hot", false}};
  r.device.name = "NVIDIA H100 80GB HBM3";
  r.device.arch = "sm_90a";
  r.summary.compiled = true;
  for (size_t i = 0; i < medians.size(); ++i) {
    CaseResult c;
    c.index = static_cast<int>(i);
    c.shape = "s" + std::to_string(i);
    c.dtype = "bf16";
    c.flags = {{"weight", true}};
    c.verdict = i < verdicts.size() ? verdicts[i] : Verdict::correct;
    if (c.verdict == Verdict::correct) {
      c.solution_time = timing(medians[i], ci_rel);
      c.reference_time = timing(medians[i] * 1.5, ci_rel);
      c.speedup = 1.5;
      c.pct_copy_bw = 90;
    } else {
      c.reason = c.verdict == Verdict::incorrect ? "12 of 4096 elements beyond tolerance" : "illegal address";
      if (c.verdict == Verdict::failed) c.fault = "illegal_address";
    }
    r.cases.push_back(c);
  }
  summarize(r);
  r.summary.compiled = true;
  return r;
}

inline RunResult compile_failed_run(size_t cases) {
  RunResult r = make_run(std::vector<double>(cases, 10.0), 0.002, std::vector<Verdict>(cases, Verdict::skipped));
  for (auto& c : r.cases) c.reason = "not run: compilation failed";
  r.error = "compilation failed";
  summarize(r);
  r.summary.compiled = false;
  return r;
}

}  // namespace ako::iterate::testing
