#include "gate/compare.hpp"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "measure/stats/stats.hpp"

namespace ako::gate {

namespace {

// A centre and its relative CI as within_noise reads them.
TimingStats as_stats(double centre_us, double ci_rel, int samples) {
  TimingStats s;
  s.iqm_us = centre_us;
  s.ci_rel = ci_rel;
  s.samples = samples;
  return s;
}

}  // namespace

TimingComparison compare_timing(const BaselineTiming& base, const TimingStats& now, double threshold_pct,
                                double min_change_us) {
  TimingComparison c;
  const bool medians = base.before_iqm();
  c.base_us = base.centre_us();
  c.now_us = medians ? now.median_us : now.iqm_us;
  const double now_ci = medians ? now.median_ci_rel : now.ci_rel;
  c.change_pct = (c.now_us / c.base_us - 1.0) * 100.0;
  c.noise_pct = (base.ci_rel * c.base_us + now_ci * c.now_us) / c.base_us * 100.0;
  const bool beyond_noise =
      !measure::within_noise(as_stats(c.base_us, base.ci_rel, base.samples), as_stats(c.now_us, now_ci, now.samples));
  const bool over_pct = std::abs(c.change_pct) > threshold_pct;
  const bool beyond_threshold = over_pct && std::abs(c.now_us - c.base_us) > min_change_us;
  const char* direction = c.change_pct > 0 ? "slower" : "faster";
  const std::string numbers = fmt::format("{:.2f} -> {:.2f} us{}, {:.1f}% {} (threshold {:.1f}%, noise ±{:.1f}%)",
                                          c.base_us, c.now_us, medians ? " (medians)" : "", std::abs(c.change_pct),
                                          direction, threshold_pct, c.noise_pct);
  if (beyond_threshold && beyond_noise) {
    c.status = c.change_pct > 0 ? CheckStatus::fail : CheckStatus::improved;
    c.detail = (c.change_pct > 0 ? "regression: " : "improvement: ") + numbers;
  } else if (beyond_threshold) {
    c.status = c.change_pct > 0 ? CheckStatus::warn : CheckStatus::pass;
    c.detail = numbers + ": inside the noise, not called a " +
               (c.change_pct > 0 ? "regression; re-run to settle it" : std::string("speed-up"));
  } else {
    c.status = CheckStatus::pass;
    c.detail = numbers + (over_pct ? fmt::format(": {:.3f} us, within the {:.3f} us floor", std::abs(c.now_us - c.base_us),
                                                 min_change_us)
                                   : std::string(": within the threshold"));
  }
  return c;
}

ResourceBudget budget_of(const KernelResources& r) {
  ResourceBudget b;
  b.registers = r.registers;
  b.spill_stores = r.spill_stores;
  b.spill_loads = r.spill_loads;
  b.stack_bytes = r.stack_bytes;
  b.shared_bytes = r.shared_bytes;
  return b;
}

ResourceComparison compare_resources(const ResourceBudget& budget, const KernelResources& now) {
  std::vector<std::string> over, better, unknown;
  // One field: over budget, under it, or not comparable.
  auto check = [&](const char* what, int limit, int value, const char* starts) {
    if (limit < 0 || value < 0) {
      unknown.push_back(what);
    } else if (value > limit) {
      over.push_back(limit == 0 && starts ? fmt::format("{} ({} {} bytes)", starts, what, value)
                                          : fmt::format("{} {} > budget {}", what, value, limit));
    } else if (value < limit) {
      better.push_back(fmt::format("{} {} < budget {}", what, value, limit));
    }
  };
  check("registers", budget.registers, now.registers, nullptr);
  check("spill stores", budget.spill_stores, now.spill_stores, "starts spilling");
  check("spill loads", budget.spill_loads, now.spill_loads, "starts spilling");
  check("stack", budget.stack_bytes, now.stack_bytes, "starts using local memory");
  check("shared", budget.shared_bytes, now.shared_bytes, nullptr);

  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  ResourceComparison c;
  const std::string usage = fmt::format("{} regs, {}/{} spill st/ld bytes, {} stack, {} shared", now.registers,
                                        now.spill_stores, now.spill_loads, now.stack_bytes, now.shared_bytes);
  if (unknown.size() == 5) {
    c.status = CheckStatus::skipped;
    c.detail = "ptxas reported no resources for this kernel";
    return c;
  }
  if (!over.empty()) {
    c.status = CheckStatus::fail;
    c.detail = "over budget: " + join(over);
  } else if (!better.empty()) {
    c.status = CheckStatus::improved;
    c.detail = "under budget: " + join(better);
  } else {
    c.status = CheckStatus::pass;
    c.detail = "within budget: " + usage;
  }
  if (!unknown.empty()) c.detail += "; not compared (unknown): " + join(unknown);
  return c;
}

}  // namespace ako::gate
