#include "report/plots.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/svg.hpp"
#include "search/space.hpp"

namespace ako::report {

namespace {

std::string series_class(size_t i) {
  if (i == 0) return "s-reference";
  if (i == 1) return "s-solution";
  return fmt::format("s-baseline-{}", (i - 2) % 6);
}

// An x, drawn where a value is missing (not timed, not correct), with why on hover.
void cross(Svg& svg, double x, double y, double r, const std::string& cls, const std::string& title) {
  svg.path(fmt::format("M{:.1f} {:.1f}L{:.1f} {:.1f}M{:.1f} {:.1f}L{:.1f} {:.1f}", x - r, y - r, x + r, y + r, x - r, y + r,
                       x + r, y - r),
           cls, title);
}

void triangle(Svg& svg, double x, double y, double r, bool up, const std::string& cls, const std::string& title) {
  const double s = up ? 1 : -1;
  svg.path(fmt::format("M{:.1f} {:.1f}L{:.1f} {:.1f}L{:.1f} {:.1f}Z", x, y - s * r, x + r, y + s * r * 0.8, x - r,
                       y + s * r * 0.8),
           cls, title);
}

// The status marker of an iteration: the shape says the status (colour alone is not enough).
void status_marker(Svg& svg, const std::string& status, double x, double y, const std::string& title) {
  const std::string cls = "pt st-" + status;
  if (status == "improved") triangle(svg, x, y, 6, true, cls, title);
  else if (status == "regression") triangle(svg, x, y, 6, false, cls, title);
  else if (status == "baseline") svg.rect(x - 5, y - 5, 10, 10, cls, title);
  else if (status == "incorrect" || status == "failed") cross(svg, x, y, 5, cls, title);
  else svg.circle(x, y, 5, cls, title);
}

std::string point_title(const HistoryPoint& p, const std::optional<double>& value, const std::string& what) {
  std::string t = fmt::format("iter {} [{}]: {}", p.iter, p.status, p.title);
  t += value ? fmt::format("\n{}: {:.2f} µs", what, *value) : fmt::format("\n{}: not measured (the iteration is {})", what, p.status);
  if (p.gain_vs_best_pct) t += fmt::format(", {:+.1f}% vs the best before it", *p.gain_vs_best_pct);
  if (p.speedup_vs_baseline) t += fmt::format(", {:.3f}x vs the baseline", *p.speedup_vs_baseline);
  if (!p.hypothesis.empty()) t += "\nhypothesis: " + p.hypothesis;
  if (p.stall_fired) t += "\nstall rule fired: three iterations without a 3% gain over the best";
  if (p.reset) t += "\nreset: a gain of at least 3% over the best ended the flat run";
  return t;
}

// A value per iteration, on an x axis of iterations: what the two history figures share.
std::string iteration_series(const History& h, const std::vector<std::optional<double>>& values, const std::string& kind,
                             const std::string& caption, const std::string& what) {
  const size_t n = h.points.size();
  const double step = 56, left = 64, top = 34, height = 170;
  // Wide enough for the caption (about 7 px a character at the title's size).
  const double width = std::max(left + static_cast<double>(std::max<size_t>(n, 2)) * step + 24,
                                left + 7.0 * static_cast<double>(caption.size()));
  Svg svg(width, top + height + 52, kind, caption);
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& v : values)
    if (v) {
      lo = any ? std::min(lo, *v) : *v;
      hi = any ? std::max(hi, *v) : *v;
      any = true;
    }
  const double pad = std::max((hi - lo) * 0.15, hi * 0.02);
  const Ticks ticks = nice_ticks(std::max(0.0, lo - pad), hi + pad, 4);
  Frame f{left, top, static_cast<double>(std::max<size_t>(n, 2)) * step, height, ticks.lo, ticks.hi};
  svg.text(left, 14, caption, "plot-title");
  draw_y_axis(svg, f, ticks, what + " (µs)");
  draw_x_axis(svg, f, "iteration", f.bottom() + 40);
  auto x_of = [&](size_t i) { return left + step / 2 + static_cast<double>(i) * step; };
  for (size_t i = 0; i < n; ++i) {
    const HistoryPoint& p = h.points[i];
    svg.text(x_of(i), f.bottom() + 16, fmt::format("{}", p.iter), "tick", "middle");
    if (p.stall_fired) {
      svg.line(x_of(i), f.top - 4, x_of(i), f.bottom(), "stall-line");
      svg.text(x_of(i), f.top - 8, "stall", "stall-label", "middle");
    } else if (p.reset) {
      svg.line(x_of(i), f.top - 4, x_of(i), f.bottom(), "reset-line");
      svg.text(x_of(i), f.top - 8, "reset", "reset-label", "middle");
    }
    if (p.iter == h.best) svg.text(x_of(i), f.bottom() + 28, "best", "best-label", "middle");
  }
  std::string d;
  bool pen = false;
  for (size_t i = 0; i < n; ++i) {
    if (!values[i]) {
      pen = false;
      continue;
    }
    d += fmt::format("{}{:.1f} {:.1f}", pen ? "L" : "M", x_of(i), f.y(*values[i]));
    pen = true;
  }
  if (!d.empty()) svg.path(d, "series-line");
  for (size_t i = 0; i < n; ++i) {
    const HistoryPoint& p = h.points[i];
    const double y = values[i] ? f.y(*values[i]) : f.bottom() - 6;
    status_marker(svg, values[i] ? p.status : (p.status == "incorrect" ? "incorrect" : "failed"), x_of(i), y,
                  point_title(p, values[i], what));
  }
  return svg.str();
}

}  // namespace

double bars_y_max(const CaseBars& bars) {
  double top = 100;
  for (const auto& f : bars.facets)
    for (const auto& g : f.groups)
      for (const auto& v : g.pct)
        if (v) top = std::max(top, *v);
  return nice_ticks(0, top * 1.05, 6).hi;
}

std::string facet_svg(const Facet& facet, const CaseBars& bars, double y_max) {
  // A baseline that ran on no case of this facet (e.g. one that applies to affine cases only)
  // gets no slot here, only a note; the reference and the solution always keep theirs.
  std::vector<size_t> shown;
  std::vector<std::string> absent;
  for (size_t s = 0; s < bars.series.size(); ++s) {
    bool any = s < 2;
    for (const auto& g : facet.groups) any = any || (s < g.pct.size() && g.pct[s]);
    if (any) shown.push_back(s);
    else absent.push_back(bars.series[s]);
  }
  const size_t k = shown.size(), n = facet.groups.size();
  const double bar_w = k <= 3 ? 8 : 6, group_w = static_cast<double>(k) * bar_w + 10;
  const double left = 52, top = 36, height = 180;
  const std::string caption = fmt::format("{} · {}", facet.dtype, facet.variant);
  Svg svg(left + std::max(static_cast<double>(n), 4.0) * group_w + 16, top + height + 96, "case-bars", caption);
  const Ticks ticks = nice_ticks(0, y_max, 6);
  Frame f{left, top, static_cast<double>(n) * group_w, height, 0, ticks.hi};
  svg.text(left, 16, caption, "plot-title");
  if (!absent.empty())
    svg.text(left, 29, fmt::format("{}: not run on these cases", fmt::join(absent, ", ")), "note-label");
  draw_y_axis(svg, f, ticks, "% of copy bandwidth");
  draw_x_axis(svg, f, "shape", f.bottom() + 90);
  for (size_t g = 0; g < n; ++g) {
    const BarGroup& grp = facet.groups[g];
    const double gx = left + static_cast<double>(g) * group_w + 5;
    for (size_t i = 0; i < k; ++i) {
      const size_t s = shown[i];
      if (s >= grp.pct.size()) continue;
      const double x = gx + static_cast<double>(i) * bar_w;
      if (grp.pct[s]) {
        const double y = f.y(*grp.pct[s]);
        svg.rect(x, y, bar_w - 1, f.bottom() - y, "bar " + series_class(s), grp.titles[s]);
      } else {
        cross(svg, x + bar_w / 2 - 0.5, f.bottom() - 4, 2.5, "na " + series_class(s), grp.titles[s]);
      }
    }
    svg.text(gx + group_w / 2 - 5, f.bottom() + 10, grp.shape, "xlabel", "end", -40);
  }
  const double y100 = f.y(100);
  svg.line(f.left, y100, f.right(), y100, "copy-line");
  // The full label where it fits over the plot (10 px text: about 5.5 px a character); in a
  // panel of one or two shapes it would run past the y axis, so there the short one (the legend
  // above the panels says what the line is).
  const std::string label = fmt::format("copy bandwidth {:.0f} GB/s = 100%", bars.copy_bandwidth_gbs);
  const bool fits = static_cast<double>(label.size()) * 5.5 <= f.width - 4;
  svg.text(f.right(), y100 - 4, fits ? label : std::string("100% copy"), "copy-label", "end");
  return svg.str();
}

std::string history_total_svg(const History& h) {
  std::vector<std::optional<double>> values;
  for (const auto& p : h.points) values.push_back(p.total_us);
  return iteration_series(h, values, "history-total", "all cases (the task's total)", "solution total");
}

std::string history_case_svg(const History& h, const HottestCase& c) {
  return iteration_series(h, c.iqm_us, "history-case", c.label, "solution IQM");
}

std::string landscape_svg(const ClassLandscape& cls, const std::string& param) {
  const auto values_it = cls.param_values.find(param);
  const std::vector<int64_t> values = values_it == cls.param_values.end() ? std::vector<int64_t>{} : values_it->second;
  const size_t m = values.size();
  const double step = 40, left = 60, top = 24, height = 150;
  const std::string caption = fmt::format("{}: {}", cls.name, param);
  Svg svg(left + std::max(static_cast<double>(m), 4.0) * step + 16, top + height + 46, "landscape", caption);
  double fastest = 0, slowest = 0;
  for (size_t i = 0; i < cls.variants.size(); ++i) {
    fastest = i ? std::min(fastest, cls.variants[i].score_us) : cls.variants[i].score_us;
    slowest = i ? std::max(slowest, cls.variants[i].score_us) : cls.variants[i].score_us;
  }
  const double cap = std::min(slowest, fastest * kOffScale);
  const Ticks ticks = nice_ticks(fastest * 0.95, std::max(cap, fastest * 1.05), 4);
  Frame f{left, top, static_cast<double>(m) * step, height, ticks.lo, ticks.hi};
  svg.text(left, 14, caption, "plot-title");
  draw_y_axis(svg, f, ticks, "µs (geomean)");
  draw_x_axis(svg, f, param, f.bottom() + 38);
  auto slot = [&](int64_t v) -> std::optional<double> {
    const auto it = std::find(values.begin(), values.end(), v);
    if (it == values.end()) return std::nullopt;
    return left + step / 2 + static_cast<double>(it - values.begin()) * step;
  };
  for (size_t i = 0; i < m; ++i) svg.text(left + step / 2 + static_cast<double>(i) * step, f.bottom() + 16,
                                          fmt::format("{}", values[i]), "tick", "middle");
  for (size_t i = 0; i < cls.variants.size(); ++i) {
    const LandscapeVariant& v = cls.variants[i];
    const auto p = v.params.find(param);
    if (p == v.params.end()) continue;
    const auto x = slot(p->second);
    if (!x) continue;
    // Spread the points of one value sideways (deterministically) so that they do not hide each other.
    const double jitter = (static_cast<double>((i * 37) % 17) / 16.0 - 0.5) * step * 0.5;
    const std::string title = fmt::format("{}: {:.2f} µs, {} registers", search::params_text(v.params), v.score_us,
                                          v.registers < 0 ? std::string("?") : std::to_string(v.registers));
    if (v.score_us > ticks.hi) triangle(svg, *x + jitter, f.top + 3, 3, true, "pt lv off", title + " (off the scale)");
    else svg.circle(*x + jitter, f.y(v.score_us), 2.6, "pt lv", title);
  }
  auto ring = [&](const std::map<std::string, int64_t>& params, double score, const std::string& cls_name,
                  const std::string& label) {
    const auto p = params.find(param);
    if (p == params.end()) return;
    const auto x = slot(p->second);
    if (!x) return;
    const double y = f.y(score);
    svg.circle(*x, y, 7, cls_name, fmt::format("{} {}: {:.2f} µs", label, search::params_text(params), score));
    // chosen above the ring, winner below: the two often share a column.
    svg.text(*x + 9, cls_name == "chosen" ? y - 8 : y + 16, label, cls_name + "-label");
  };
  if (cls.winner && cls.winner->params != cls.chosen) ring(cls.winner->params, cls.winner->score_us, "winner", "winner");
  if (cls.chosen_score) ring(cls.chosen, *cls.chosen_score, "chosen", "chosen");
  return svg.str();
}

}  // namespace ako::report
