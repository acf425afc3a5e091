#include "iterate/entry_text.hpp"

#include <map>

#include <fmt/format.h>

#include "gate/case_key.hpp"

namespace ako::iterate {

namespace {

bool timed(const CaseResult& c) {
  return c.kind == "compare" && c.verdict == Verdict::correct && c.solution_time && c.solution_time->samples > 0;
}

std::map<std::string, double> solution_iqms(const RunResult* r) {
  std::map<std::string, double> m;
  if (r)
    for (const auto& c : r->cases)
      if (timed(c)) m[gate::case_key(c)] = c.solution_time->iqm_us;
  return m;
}

std::string shorten(const std::string& s, size_t n) {
  std::string one;
  for (char c : s) one += (c == '\n' || c == '|') ? ' ' : c;
  return one.size() <= n ? one : one.substr(0, n - 3) + "...";
}

std::string comparison_line(const char* what, const RunComparison& c) {
  if (c.common_cases == 0) return fmt::format("{}: no correct timed case in common.", what);
  return fmt::format("{}: {:.3f}x over {} cases ({:.2f} -> {:.2f} us, {} the noise of ±{:.2f} us; per case {} faster, "
                     "{} slower, {} within noise{}).",
                     what, c.speedup(), c.common_cases, c.then_us, c.now_us, c.within_noise() ? "within" : "beyond",
                     c.noise_us, c.faster, c.slower, c.same,
                     c.on_medians ? fmt::format("; {} compared on medians, timed before the IQM", c.on_medians) : "");
}

}  // namespace

std::string speedup_cell(const RunResult& r) {
  return r.summary.runtime_us > 0 ? fmt::format("{:.3f}x", r.summary.speedup) : "-";
}

std::string runtime_cell(const RunResult& r) {
  return r.summary.runtime_us > 0 ? fmt::format("{:.2f} us", r.summary.runtime_us) : "-";
}

std::string case_counts(const RunResult& r) {
  int correct = 0, incorrect = 0, failed = 0, skipped = 0;
  for (const auto& c : r.cases) {
    if (c.kind != "compare") continue;
    correct += c.verdict == Verdict::correct;
    incorrect += c.verdict == Verdict::incorrect;
    failed += c.verdict == Verdict::failed;
    skipped += c.verdict == Verdict::skipped;
  }
  return fmt::format("{} correct, {} incorrect, {} failed, {} skipped", correct, incorrect, failed, skipped);
}

std::string bench_markdown(const RunResult& now, const BenchContext& ctx) {
  const std::string device = now.device.name.empty() ? "no GPU" : now.device.name;
  const std::string date = now.started_at.substr(0, 10);
  const bool hot = now.options.value("hot", false);
  std::string s = fmt::format("{}, {}, seed {}, {} trials per case, L2 {}. Compiled: {}. Cases: {} (correctness: {}).",
                              device, date.empty() ? "undated" : date, now.options.value("seed", uint64_t{0}),
                              now.options.value("trials", 0), hot ? "hot" : "flushed before every sample",
                              now.summary.compiled ? "yes" : "no", case_counts(now), correctness_word(now));
  if (now.summary.runtime_us > 0)
    s += fmt::format(" Runtime: {:.2f} us (sum of the solution's IQMs). Speedup vs reference: {:.3f}x (geomean "
                     "{:.3f}x).",
                     now.summary.runtime_us, now.summary.speedup, now.summary.geomean_speedup);
  s += "\n";
  if (ctx.baseline) s += "\n" + comparison_line("vs baseline (iter 0)", compare_runs(now, *ctx.baseline)) + "\n";
  if (ctx.best)
    s += "\n" + comparison_line(fmt::format("vs best (iter {})", ctx.best_iter).c_str(), compare_runs(now, *ctx.best)) + "\n";
  for (const auto& n : ctx.notes) s += "\n- " + shorten(n, 300);
  if (!ctx.notes.empty()) s += "\n";

  const auto base = solution_iqms(ctx.baseline);
  s += "\n| case | verdict | mean us | min ~ max us | IQM us | vs ref | vs baseline | % copy |\n"
       "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
  int checks = 0, checks_ok = 0;
  for (const auto& c : now.cases) {
    if (c.kind != "compare") {
      ++checks;
      checks_ok += c.verdict == Verdict::correct;
      continue;
    }
    const std::string key = gate::case_key(c);
    if (!timed(c)) {
      const std::string why = c.reason.empty() ? "" : ": " + shorten(c.reason, 90);
      s += fmt::format("| {} | {}{} | - | - | - | - | - | - |\n", key, verdict_name(c.verdict), why);
      continue;
    }
    const TimingStats& t = *c.solution_time;
    const auto b = base.find(key);
    s += fmt::format("| {} | correct | {:.2f} | {:.2f} ~ {:.2f} | {:.2f} | {} | {} | {} |\n", key, t.mean_us, t.min_us,
                     t.max_us, t.iqm_us, c.speedup > 0 ? fmt::format("{:.2f}x", c.speedup) : "-",
                     b != base.end() ? fmt::format("{:.3f}x", b->second / t.iqm_us) : "-",
                     c.pct_copy_bw > 0 ? fmt::format("{:.1f}", c.pct_copy_bw) : "-");
  }
  if (checks) s += fmt::format("\nReference checks against the fp64 oracle: {}/{} correct.\n", checks_ok, checks);
  return s;
}

std::string ncu_line(const profile::NcuSummary& s, const std::string& case_label) {
  auto pct = [](const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v) : std::string("n/a"); };
  return fmt::format("{}: DRAM {} of peak, achieved occupancy {}, {} registers/thread, spills {}, dominant stall {}",
                     case_label, pct(s.dram_throughput_pct), pct(s.achieved_occupancy_pct),
                     s.registers_per_thread ? std::to_string(*s.registers_per_thread) : "n/a",
                     s.local_spill_requests ? fmt::format("{:.0f}", *s.local_spill_requests) : "n/a",
                     s.dominant_stall.empty() ? "n/a" : s.dominant_stall);
}

std::string ncu_markdown(const profile::NcuSummary& s, const std::string& case_label, const std::string& report) {
  auto val = [](const std::optional<double>& v, const char* unit) {
    return v ? fmt::format("{:.1f}{}", *v, unit) : std::string("n/a");
  };
  std::string out = fmt::format("Hottest case {}, kernel `{}` (one launch, clocks not locked; report `{}`).\n\n", case_label,
                                s.kernel, report);
  out += "| metric | value |\n| --- | --- |\n";
  out += fmt::format("| duration | {} |\n", val(s.duration_us, " us"));
  out += fmt::format("| DRAM throughput | {} of peak |\n", val(s.dram_throughput_pct, "%"));
  out += fmt::format("| memory throughput | {} of peak |\n", val(s.memory_throughput_pct, "%"));
  out += fmt::format("| SM throughput | {} of peak |\n", val(s.sm_throughput_pct, "%"));
  out += fmt::format("| achieved occupancy | {} (theoretical {}) |\n", val(s.achieved_occupancy_pct, "%"),
                     val(s.theoretical_occupancy_pct, "%"));
  out += fmt::format("| registers per thread | {} |\n",
                     s.registers_per_thread ? std::to_string(*s.registers_per_thread) : "n/a");
  out += fmt::format("| local-memory spill requests | {}{} |\n", val(s.local_spill_requests, ""),
                     s.spill_metric.empty() ? "" : " (`" + s.spill_metric + "`)");
  out += fmt::format("| dominant stall | {}{} |\n", s.dominant_stall.empty() ? "n/a" : s.dominant_stall,
                     s.dominant_stall_cycles ? fmt::format(" ({:.2f} cycles per issued instruction)", *s.dominant_stall_cycles) : "");
  return out;
}

}  // namespace ako::iterate
