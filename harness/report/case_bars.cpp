#include "report/case_bars.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ako::report {

namespace {

bool timed_correct(Verdict v, const std::optional<TimingStats>& t) { return v == Verdict::correct && t && t->iqm_us > 0; }

// The order in which values first appear.
template <typename T>
size_t index_of(std::vector<T>& seen, const T& value) {
  const auto it = std::find(seen.begin(), seen.end(), value);
  if (it != seen.end()) return static_cast<size_t>(it - seen.begin());
  seen.push_back(value);
  return seen.size() - 1;
}

std::vector<std::string> baseline_names(const RunResult& run) {
  std::vector<std::string> names;
  for (const auto& c : run.cases)
    for (const auto& b : c.baselines) index_of(names, b.name);
  return names;
}

const BaselineResult* find_baseline(const CaseResult& c, const std::string& name) {
  for (const auto& b : c.baselines)
    if (b.name == name) return &b;
  return nullptr;
}

std::string why_no_time(Verdict v, const std::string& reason) {
  if (v == Verdict::correct) return "not timed";
  return reason.empty() ? std::string(verdict_name(v)) : std::string(verdict_name(v)) + ": " + reason;
}

}  // namespace

std::string variant_label(const CaseResult& c) {
  std::string s;
  for (const auto& [name, on] : c.flags) s += (s.empty() ? "" : " ") + std::string(on ? "" : "no") + name;
  for (const auto& [name, value] : c.axes) s += (s.empty() ? "" : " ") + name + "=" + value;
  return s.empty() ? "all" : s;
}

CaseBars case_bars(const RunResult& run) {
  CaseBars bars;
  bars.copy_bandwidth_gbs = run.device.copy_bandwidth_gbs;
  bars.series = {"reference", "solution"};
  for (const auto& n : baseline_names(run)) bars.series.push_back(n);

  std::vector<std::pair<std::string, std::string>> facet_keys;
  std::vector<std::string> dtypes;
  for (const auto& c : run.cases) {
    if (c.kind != "compare") continue;
    index_of(dtypes, c.dtype);
    const auto key = std::make_pair(c.dtype, variant_label(c));
    const size_t fi = index_of(facet_keys, key);
    if (fi == bars.facets.size()) bars.facets.push_back({key.first, key.second, {}});
    Facet& f = bars.facets[fi];
    BarGroup g;
    g.shape = c.shape;
    const double bw = bars.copy_bandwidth_gbs;
    auto pct_of = [&](double us) { return bw > 0 && us > 0 ? c.bytes / (us * 1e-6) / 1e9 / bw * 100 : 0.0; };
    auto describe = [&](const std::string& who, const std::optional<TimingStats>& t, Verdict v, const std::string& reason) {
      if (!timed_correct(v, t)) return fmt::format("{} {}: {}", c.shape, who, why_no_time(v, reason));
      return fmt::format("{} {} {} {}: {:.2f} µs, {:.0f} GB/s, {:.1f}% of copy bandwidth", c.shape, c.dtype,
                         variant_label(c), who, t->iqm_us, c.bytes / (t->iqm_us * 1e-6) / 1e9, pct_of(t->iqm_us));
    };
    // The reference is the trusted kernel: its time stands whenever it was measured.
    const bool ref_ok = c.reference_time && c.reference_time->iqm_us > 0;
    g.pct.push_back(ref_ok ? std::optional<double>(pct_of(c.reference_time->iqm_us)) : std::nullopt);
    g.titles.push_back(ref_ok ? describe("reference", c.reference_time, Verdict::correct, "")
                              : fmt::format("{} reference: not timed", c.shape));
    const bool sol_ok = timed_correct(c.verdict, c.solution_time);
    g.pct.push_back(sol_ok ? std::optional<double>(pct_of(c.solution_time->iqm_us)) : std::nullopt);
    g.titles.push_back(describe("solution", c.solution_time, c.verdict, c.reason));
    for (size_t s = 2; s < bars.series.size(); ++s) {
      const BaselineResult* b = find_baseline(c, bars.series[s]);
      const bool ok = b && timed_correct(b->verdict, b->time);
      g.pct.push_back(ok ? std::optional<double>(pct_of(b->time->iqm_us)) : std::nullopt);
      g.titles.push_back(b ? describe(b->name, b->time, b->verdict, b->reason)
                           : fmt::format("{} {}: not run for this case", c.shape, bars.series[s]));
    }
    f.groups.push_back(std::move(g));
  }
  // dtype first (in order of appearance), then the variant, as a reader scans the grid.
  std::stable_sort(bars.facets.begin(), bars.facets.end(), [&](const Facet& a, const Facet& b) {
    const auto ia = std::find(dtypes.begin(), dtypes.end(), a.dtype), ib = std::find(dtypes.begin(), dtypes.end(), b.dtype);
    return ia != ib ? ia < ib : a.variant < b.variant;
  });
  return bars;
}

BenchTable bench_table(const RunResult& run) {
  BenchTable t;
  t.baselines = baseline_names(run);
  t.summary = run.summary;
  t.centre = timing_centre_name(run);
  std::vector<std::vector<double>> ratios(t.baselines.size());
  for (const auto& c : run.cases) {
    if (c.kind != "compare") continue;
    BenchRow r;
    r.shape = c.shape;
    r.dtype = c.dtype;
    r.variant = variant_label(c);
    r.verdict = verdict_name(c.verdict);
    if (c.reference_time && c.reference_time->iqm_us > 0) r.reference_us = c.reference_time->iqm_us;
    const bool sol_ok = timed_correct(c.verdict, c.solution_time);
    if (sol_ok) {
      r.solution_us = c.solution_time->iqm_us;
      r.pct_copy = c.pct_copy_bw;
      if (c.speedup > 0) r.speedup = c.speedup;
    }
    for (size_t i = 0; i < t.baselines.size(); ++i) {
      const BaselineResult* b = find_baseline(c, t.baselines[i]);
      const bool ok = b && timed_correct(b->verdict, b->time);
      r.baseline_us.push_back(ok ? std::optional<double>(b->time->iqm_us) : std::nullopt);
      const bool ratio = ok && sol_ok;
      r.vs_baseline.push_back(ratio ? std::optional<double>(b->time->iqm_us / c.solution_time->iqm_us) : std::nullopt);
      if (ratio) ratios[i].push_back(b->time->iqm_us / c.solution_time->iqm_us);
      r.baseline_note.push_back(ok ? "" : !b ? "n/a" : b->verdict == Verdict::skipped ? "n/a" : verdict_name(b->verdict));
    }
    t.rows.push_back(std::move(r));
  }
  for (size_t i = 0; i < t.baselines.size(); ++i) {
    BaselineSummary s;
    s.name = t.baselines[i];
    s.cases = static_cast<int>(ratios[i].size());
    if (!ratios[i].empty()) {
      double log_sum = 0;
      for (double x : ratios[i]) log_sum += std::log(x);
      s.geomean = std::exp(log_sum / static_cast<double>(ratios[i].size()));
      s.min = *std::min_element(ratios[i].begin(), ratios[i].end());
      s.max = *std::max_element(ratios[i].begin(), ratios[i].end());
    }
    t.over_baselines.push_back(s);
  }
  return t;
}

}  // namespace ako::report
