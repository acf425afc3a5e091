// report.md: the tables of a kernel PR in SGLang's format (micro-benchmark table, speedup over
// the engine's kernel, the ncu before/after pair), then the iterations and the tuned classes.
#include <fmt/format.h>

#include "report/render.hpp"
#include "search/space.hpp"

namespace ako::report {

namespace {

// Markdown table cells: a pipe would end the cell.
std::string cell(std::string s) {
  for (size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2) s.replace(i, 1, "\\|");
  for (auto& c : s)
    if (c == '\n') c = ' ';
  return s;
}

std::string bench_md(const BenchTable& t) {
  std::string s = "| shape | dtype | variant | reference (µs) |";
  std::string rule = "| --- | --- | --- | ---: |";
  for (const auto& b : t.baselines) {
    s += " " + cell(b) + " (µs) |";
    rule += " ---: |";
  }
  s += " solution (µs) | speedup vs reference |";
  rule += " ---: | ---: |";
  for (const auto& b : t.baselines) {
    s += " speedup vs " + cell(b) + " |";
    rule += " ---: |";
  }
  s += " % copy BW | verdict |\n" + rule + " ---: | --- |\n";
  for (const auto& r : t.rows) {
    s += fmt::format("| {} | {} | {} | {} |", cell(r.shape), r.dtype, cell(r.variant), num_or_dash(r.reference_us));
    for (size_t i = 0; i < t.baselines.size(); ++i)
      s += " " + (r.baseline_us[i] ? num_or_dash(r.baseline_us[i]) : cell(r.baseline_note[i])) + " |";
    s += fmt::format(" {} | {} |", num_or_dash(r.solution_us), num_or_dash(r.speedup, "{:.2f}x"));
    for (size_t i = 0; i < t.baselines.size(); ++i) s += " " + num_or_dash(r.vs_baseline[i], "{:.2f}x") + " |";
    s += fmt::format(" {} | {} |\n", num_or_dash(r.pct_copy, "{:.1f}"), r.verdict);
  }
  return s;
}

}  // namespace

std::string render_markdown(const ReportData& d) {
  const ReportMeta& m = d.meta;
  std::string s = fmt::format("## {}: micro-benchmark\n\n", m.task);
  s += fmt::format("- Device: {}\n- Run: `{}` ({}{})\n- Commit: `{}`\n", m.device, m.run_options, m.run_file,
                   m.run_started_at.empty() ? "" : ", started " + m.run_started_at, m.commit);
  if (!m.config.empty()) s += "- Config: " + m.config + "\n";
  s += "\n";
  if (d.bench) {
    s += bench_md(*d.bench);
    const BenchTable& t = *d.bench;
    s += fmt::format("\n### Speedup over the engine\n\n- reference (`input/{}`): {:.3f}x over the summed {}s, geomean "
                     "{:.3f}x ({} of {} cases correct)\n",
                     m.task, t.summary.speedup, t.centre, t.summary.geomean_speedup, t.summary.correct, t.summary.cases);
    for (const auto& b : t.over_baselines)
      s += b.cases ? fmt::format("- {}: geomean {:.3f}x (min {:.2f}x, max {:.2f}x) over {} cases timed and correct in "
                                 "both\n",
                                 b.name, b.geomean, b.min, b.max, b.cases)
                   : fmt::format("- {}: no case where both were timed and correct\n", b.name);
  }
  s += "\n## ncu: before / after\n\n";
  if (d.ncu.before || d.ncu.after) {
    s += fmt::format("| metric | before (iter {}) | after (iter {}) |\n| --- | --- | --- |\n",
                     d.ncu.before ? std::to_string(d.ncu.before->iter) : "-", d.ncu.after ? std::to_string(d.ncu.after->iter) : "-");
    for (const auto& r : ncu_rows(d.ncu)) s += fmt::format("| {} | {} | {} |\n", r.metric, cell(r.before), cell(r.after));
  } else {
    s += "No ncu profile in the trajectory (see \"Not included\").\n";
  }
  if (d.history && !d.history->points.empty()) {
    s += "\n## Iterations\n\n| iter | title | status | speedup vs baseline | total (µs) | commit |\n"
         "| ---: | --- | --- | ---: | ---: | --- |\n";
    for (const auto& p : d.history->points)
      s += fmt::format("| {}{} | {} | {}{}{} | {} | {} | {} |\n", p.iter, p.iter == d.history->best ? " (best)" : "",
                       cell(p.title), p.status, p.stall_fired ? ", stall" : "", p.reset ? ", reset" : "",
                       num_or_dash(p.speedup_vs_baseline, "{:.3f}x"), num_or_dash(p.total_us), p.commit.substr(0, 10));
  }
  if (d.landscape) {
    s += fmt::format("\n## Tuned classes ({}, {} records in `{}`)\n\n| class | shapes | chosen | µs | winner over the "
                     "records | µs | variants | wrong | refused |\n| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: |\n",
                     d.landscape->device, d.landscape->records, d.landscape->db_file);
    for (const auto& c : d.landscape->classes) {
      std::string shapes;
      for (const auto& sh : c.shapes) shapes += (shapes.empty() ? "" : ", ") + sh;
      s += fmt::format("| {} | {} | `{}` | {} | {} | {} | {} | {} | {} |\n", c.name, shapes, search::params_text(c.chosen),
                       num_or_dash(c.chosen_score), c.winner ? "`" + search::params_text(c.winner->params) + "`" : "-",
                       c.winner ? fmt::format("{:.2f}", c.winner->score_us) : "-", c.variants.size(), c.wrong, c.refused);
    }
  }
  s += model_level_markdown(d);
  if (!d.missing.empty()) {
    s += "\n## Not included\n\n";
    for (const auto& mi : d.missing) s += fmt::format("- {}: `{}` is missing; make it with `{}`\n", mi.what, mi.file, mi.how);
  }
  return s + fmt::format("\n<sub>Made by `{}` on {}.</sub>\n", m.command, m.generated_at);
}

}  // namespace ako::report
