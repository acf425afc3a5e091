// report.html: one self-contained page. Inline CSS and SVG only: no script, no external
// stylesheet, font or image, so it opens the same anywhere, offline, and renders in CI.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/plots.hpp"
#include "report/render.hpp"
#include "report/svg.hpp"
#include "search/space.hpp"

namespace ako::report {

namespace {

// One palette for the bars (SVG fill) and the legend swatches (background).
constexpr const char* kSeriesColours[] = {"#9aa5b1", "#2563eb", "#f59e0b", "#8b5cf6", "#14b8a6", "#ef4444", "#a16207",
                                         "#db2777"};

std::string css() {
  std::string s = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1f2933;background:#fff}
h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d9e2ec;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 4px}
dl.meta{display:grid;grid-template-columns:max-content auto;gap:2px 14px;margin:8px 0}dl.meta dt{font-weight:600;color:#52606d}
dl.meta dd{margin:0}code{font:12.5px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f0f4f8;padding:1px 4px;border-radius:3px}
.figs{display:flex;flex-wrap:wrap;gap:10px 18px;align-items:flex-start}
.legend{margin:6px 0 10px;display:flex;flex-wrap:wrap;gap:4px 16px}.key{display:inline-flex;align-items:center;gap:5px}
.sw{display:inline-block;width:12px;height:12px;border-radius:2px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #d9e2ec;padding:3px 8px;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f0f4f8}
.note{color:#52606d}.missing li{margin:2px 0}
svg.plot{background:#fff;overflow:visible}
svg .grid{stroke:#e4e7eb;stroke-width:1}svg .axis{stroke:#52606d;stroke-width:1}
svg .tick{font-size:10px;fill:#52606d}svg .xlabel{font-size:10px;fill:#323f4b}
svg .axis-label{font-size:11px;fill:#323f4b;font-weight:600}svg .plot-title{font-size:12px;font-weight:600;fill:#1f2933}
svg .copy-line{stroke:#dc2626;stroke-width:1.5;stroke-dasharray:6 3}svg .copy-label{font-size:10px;fill:#dc2626}
svg .na{stroke-width:1.5;fill:none}
svg .series-line{fill:none;stroke:#7b8794;stroke-width:1.5}
svg .pt{stroke:#fff;stroke-width:1}
svg .st-baseline{fill:#2563eb}svg .st-improved{fill:#16a34a}svg .st-regression{fill:#dc2626}
svg .st-no-change{fill:#7b8794}svg .st-incorrect,svg .st-failed{fill:none;stroke:#111827;stroke-width:2}
svg .stall-line{stroke:#d97706;stroke-width:1.5;stroke-dasharray:4 3}svg .stall-label{font-size:10px;fill:#d97706;font-weight:600}
svg .reset-line{stroke:#16a34a;stroke-width:1.5;stroke-dasharray:1 3}svg .reset-label{font-size:10px;fill:#16a34a;font-weight:600}
svg .best-label{font-size:10px;fill:#16a34a}svg .note-label{font-size:10px;fill:#7b8794}
svg .lv{fill:#2563eb;fill-opacity:.55;stroke:none}svg .lv.off{fill:#9aa5b1}
svg .chosen{fill:none;stroke:#dc2626;stroke-width:2}svg .chosen-label{font-size:10px;fill:#dc2626;font-weight:600}
svg .winner{fill:none;stroke:#16a34a;stroke-width:2}svg .winner-label{font-size:10px;fill:#16a34a;font-weight:600}
.mk{font-weight:700}.mk.st-baseline{color:#2563eb}.mk.st-improved{color:#16a34a}.mk.st-regression{color:#dc2626}
.mk.st-no-change{color:#7b8794}.mk.st-failed{color:#111827}.mk.stall{color:#d97706}.mk.reset{color:#16a34a}
.mk.chosen{color:#dc2626}.mk.winner{color:#16a34a}.mk.copy{color:#dc2626}
)";
  for (size_t i = 0; i < std::size(kSeriesColours); ++i) {
    const std::string cls = i == 0 ? "s-reference" : i == 1 ? "s-solution" : fmt::format("s-baseline-{}", i - 2);
    s += fmt::format("svg .{0}{{fill:{1}}}svg .na.{0}{{stroke:{1}}}.sw.{0}{{background:{1}}}\n", cls, kSeriesColours[i]);
  }
  return s;
}

std::string esc(const std::string& s) { return xml_escape(s); }

std::string series_class(size_t i) {
  return i == 0 ? "s-reference" : i == 1 ? "s-solution" : fmt::format("s-baseline-{}", (i - 2) % 6);
}

std::string meta_block(const ReportData& d) {
  const ReportMeta& m = d.meta;
  std::string s = "<dl class=\"meta\">\n";
  auto row = [&](const char* k, const std::string& v) { s += fmt::format("<dt>{}</dt><dd>{}</dd>\n", k, v); };
  row("device", esc(m.device));
  row("commit", "<code>" + esc(m.commit) + "</code>");
  row("command", "<code>" + esc(m.command) + "</code>");
  row("run", "<code>" + esc(m.run_file) + "</code>" + (m.run_started_at.empty() ? "" : ", started " + esc(m.run_started_at)) +
                 ", as <code>" + esc(m.run_options) + "</code>");
  if (!m.config.empty()) row("config", esc(m.config));
  row("date", esc(m.generated_at) + " (report made)");
  return s + "</dl>\n";
}

std::string bench_html(const BenchTable& t) {
  std::string s = "<table class=\"bench\"><tr><th>shape</th><th>dtype</th><th>variant</th><th>reference µs</th>";
  for (const auto& b : t.baselines) s += "<th>" + esc(b) + " µs</th>";
  s += "<th>solution µs</th><th>vs reference</th>";
  for (const auto& b : t.baselines) s += "<th>vs " + esc(b) + "</th>";
  s += "<th>% copy</th><th>verdict</th></tr>\n";
  for (const auto& r : t.rows) {
    s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td>", esc(r.shape), esc(r.dtype),
                     esc(r.variant), num_or_dash(r.reference_us));
    for (size_t i = 0; i < t.baselines.size(); ++i)
      s += "<td class=\"n\">" + (r.baseline_us[i] ? num_or_dash(r.baseline_us[i]) : esc(r.baseline_note[i])) + "</td>";
    s += fmt::format("<td class=\"n\">{}</td><td class=\"n\">{}</td>", num_or_dash(r.solution_us),
                     num_or_dash(r.speedup, "{:.2f}x"));
    for (size_t i = 0; i < t.baselines.size(); ++i) s += "<td class=\"n\">" + num_or_dash(r.vs_baseline[i], "{:.2f}x") + "</td>";
    s += fmt::format("<td class=\"n\">{}</td><td>{}</td></tr>\n", num_or_dash(r.pct_copy, "{:.1f}"), esc(r.verdict));
  }
  return s + "</table>\n";
}

std::string speedup_lines(const BenchTable& t) {
  std::string s = fmt::format(
      "<p>{} of {} cases correct. Solution vs the reference: <b>{:.3f}x</b> over the summed {}s, geomean {:.3f}x.",
      t.summary.correct, t.summary.cases, t.summary.speedup, t.centre, t.summary.geomean_speedup);
  for (const auto& b : t.over_baselines)
    s += b.cases ? fmt::format(" Vs <b>{}</b>: geomean <b>{:.3f}x</b> (min {:.2f}x, max {:.2f}x) over {} cases.", esc(b.name),
                               b.geomean, b.min, b.max, b.cases)
                 : fmt::format(" Vs {}: no case where both were timed and correct.", esc(b.name));
  return s + "</p>\n";
}

std::string cases_section(const ReportData& d) {
  std::string s = "<section id=\"cases\"><h2>Per case: achieved bandwidth against the copy bandwidth</h2>\n";
  if (!d.bars || d.bars->facets.empty()) return s + "<p class=\"note\">No compare cases in the run.</p></section>\n";
  const CaseBars& b = *d.bars;
  s += fmt::format("<p class=\"note\">Bytes the op must move over the {} time, in % of the device's copy bandwidth "
                   "({:.0f} GB/s, read + write); 100% is the roofline of a memory-bound kernel. One panel per dtype and "
                   "variant; an &#215; marks a kernel not timed or not correct there (hover for why).</p>\n",
                   d.bench ? d.bench->centre : std::string("IQM"), b.copy_bandwidth_gbs);
  s += "<div class=\"legend\">";
  for (size_t i = 0; i < b.series.size(); ++i)
    s += fmt::format("<span class=\"key\"><span class=\"sw {}\"></span>{}</span>", series_class(i), esc(b.series[i]));
  s += "<span class=\"key\"><span class=\"mk copy\">- - -</span>100% of copy bandwidth</span></div>\n<div class=\"figs\">\n";
  const double y_max = bars_y_max(b);
  for (const auto& f : b.facets) s += facet_svg(f, b, y_max);
  s += "</div>\n";
  if (d.bench) s += speedup_lines(*d.bench) + "<details><summary>Micro-benchmark table</summary>\n" + bench_html(*d.bench) + "</details>\n";
  return s + "</section>\n";
}

std::string history_section(const ReportData& d) {
  std::string s = "<section id=\"history\"><h2>Iteration history</h2>\n";
  if (!d.history || d.history->points.empty())
    return s + "<p class=\"note\">No trajectory (see <a href=\"#missing\">below</a>).</p></section>\n";
  const History& h = *d.history;
  s += "<div class=\"legend\"><span class=\"key\"><span class=\"mk st-baseline\">&#9632;</span>baseline</span>"
       "<span class=\"key\"><span class=\"mk st-improved\">&#9650;</span>improved</span>"
       "<span class=\"key\"><span class=\"mk st-regression\">&#9660;</span>regression</span>"
       "<span class=\"key\"><span class=\"mk st-no-change\">&#9679;</span>no change</span>"
       "<span class=\"key\"><span class=\"mk st-failed\">&#215;</span>incorrect or failed</span>"
       "<span class=\"key\"><span class=\"mk stall\">- - stall</span>the stall rule fired (3 iterations under +3% over the best)</span>"
       "<span class=\"key\"><span class=\"mk reset\">&#183;&#183; reset</span>a gain of 3% or more ended a flat run</span></div>\n";
  s += "<p class=\"note\">Hover a point for the iteration's hypothesis. The hottest cases are those with the largest "
       "solution times (IQM) in the best iteration's run.</p>\n<div class=\"figs\">\n";
  s += history_total_svg(h);
  for (const auto& c : h.hottest) s += history_case_svg(h, c);
  s += "</div>\n<table><tr><th>iter</th><th>title</th><th>status</th><th>vs baseline</th><th>total µs</th><th>vs best</th>"
       "<th>stall run</th><th>hypothesis</th><th>commit</th></tr>\n";
  for (const auto& p : h.points)
    s += fmt::format("<tr><td class=\"n\">{}{}</td><td>{}</td><td>{}{}{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>"
                     "<td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td><code>{}</code></td></tr>\n",
                     p.iter, p.iter == h.best ? " (best)" : "", esc(p.title), esc(p.status), p.stall_fired ? ", stall" : "",
                     p.reset ? ", reset" : "", num_or_dash(p.speedup_vs_baseline, "{:.3f}x"), num_or_dash(p.total_us),
                     num_or_dash(p.gain_vs_best_pct, "{:+.1f}%"), p.stall_run, esc(p.hypothesis), p.commit.empty() ? std::string("-") : esc(p.commit.substr(0, 10)));
  return s + "</table>\n</section>\n";
}

std::string landscape_section(const ReportData& d) {
  std::string s = "<section id=\"tuning\"><h2>Tuning landscape</h2>\n";
  if (!d.landscape) return s + "<p class=\"note\">No tuning database (see <a href=\"#missing\">below</a>).</p></section>\n";
  const Landscape& l = *d.landscape;
  s += fmt::format("<p class=\"note\">Database <code>{}</code>: {} records measured on {} ({}, solution source {}){}. "
                   "Classes as in {}: each point is a variant measured on every shape of its class, scored as "
                   "<code>ako tune</code> scores it (geometric mean of its {}s over the class's shapes). "
                   "<span class=\"mk chosen\">&#9711; chosen</span> is the config's point, "
                   "<span class=\"mk winner\">&#9711; winner</span> the tuner's pick over these records when it differs; "
                   "points over {}x the fastest sit on the top edge.</p>\n",
                   esc(l.db_file), l.records, esc(l.device), esc(l.arch), esc(l.source_hash.substr(0, 12)),
                   l.other_context ? fmt::format(", {} records of other contexts ignored", l.other_context) : "",
                   esc(l.config_file.empty() ? std::string("no config file") : l.config_file), l.centre, kOffScale);
  std::vector<std::string> unmeasured;
  for (const auto& c : l.classes) {
    if (c.variants.size() + c.wrong + c.refused + c.incomplete == 0) {
      unmeasured.push_back(c.name + " (" + fmt::format("{}", fmt::join(c.shapes, ", ")) + ")");
      continue;
    }
    s += fmt::format("<h3>{} <span class=\"note\">(<code>{}</code>; shapes: {})</span></h3>\n", esc(c.name),
                     esc(c.when.empty() ? std::string("always") : c.when), esc(fmt::format("{}", fmt::join(c.shapes, ", "))));
    s += fmt::format("<p>{} variants measured on every shape; {} wrong (incorrect or failed), {} refused by the static "
                     "checks, {} not measured on every shape. Chosen: <code>{}</code> ({}){}.</p>\n",
                     c.variants.size(), c.wrong, c.refused, c.incomplete, esc(search::params_text(c.chosen)),
                     c.chosen_score ? fmt::format("{:.2f} µs", *c.chosen_score) : "not in the database",
                     c.winner ? fmt::format("; winner over the records: <code>{}</code> ({:.2f} µs)",
                                            esc(search::params_text(c.winner->params)), c.winner->score_us)
                              : "");
    if (c.variants.empty()) continue;
    s += "<div class=\"figs\">\n";
    for (const auto& p : c.param_names) s += landscape_svg(c, p);
    s += "</div>\n";
  }
  if (!unmeasured.empty())
    s += fmt::format("<p class=\"note\">Classes with no record in this database (not tuned from it): {}.</p>\n",
                     esc(fmt::format("{}", fmt::join(unmeasured, "; "))));
  return s + "</section>\n";
}

std::string ncu_section(const ReportData& d) {
  std::string s = "<section id=\"ncu\"><h2>ncu: before (baseline iteration) / after (best iteration)</h2>\n";
  if (!d.ncu.before && !d.ncu.after) return s + "<p class=\"note\">No ncu profile (see <a href=\"#missing\">below</a>).</p></section>\n";
  s += fmt::format("<table><tr><th>metric</th><th>before (iter {})</th><th>after (iter {})</th></tr>\n",
                   d.ncu.before ? std::to_string(d.ncu.before->iter) : "-", d.ncu.after ? std::to_string(d.ncu.after->iter) : "-");
  for (const auto& r : ncu_rows(d.ncu))
    s += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", esc(r.metric), esc(r.before), esc(r.after));
  return s + "</table>\n</section>\n";
}

std::string missing_section(const ReportData& d) {
  std::string s = "<section id=\"missing\"><h2>Not in this report</h2>\n";
  if (d.missing.empty()) return s + "<p class=\"note\">Nothing: every input was found.</p></section>\n";
  s += "<ul class=\"missing\">\n";
  for (const auto& m : d.missing)
    s += fmt::format("<li><b>{}</b>: <code>{}</code> is missing; make it with <code>{}</code></li>\n", esc(m.what), esc(m.file),
                     esc(m.how));
  return s + "</ul>\n</section>\n";
}

}  // namespace

std::string render_html(const ReportData& d) {
  std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  s += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  s += fmt::format("<title>ako report: {}</title>\n<style>{}</style></head>\n<body>\n", esc(d.meta.task), css());
  s += fmt::format("<header><h1>ako report: {}</h1>\n{}</header>\n", esc(d.meta.task), meta_block(d));
  s += "<nav><a href=\"#cases\">per case</a> · <a href=\"#history\">iterations</a> · <a href=\"#tuning\">tuning</a> · "
       "<a href=\"#ncu\">ncu</a> · " + std::string(d.models.empty() ? "" : "<a href=\"#models\">model-level</a> · ") +
       "<a href=\"#missing\">not included</a></nav>\n";
  s += cases_section(d) + history_section(d) + landscape_section(d) + ncu_section(d) + model_level_html(d) +
       missing_section(d);
  return s + "</body></html>\n";
}

}  // namespace ako::report
