#include "report/svg.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ako::report {

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

Ticks nice_ticks(double lo, double hi, int target) {
  Ticks t;
  if (!(hi > lo)) hi = lo + (lo == 0 ? 1 : std::abs(lo) * 0.1);
  const double raw = (hi - lo) / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  t.lo = std::floor(lo / step) * step;
  t.hi = std::ceil(hi / step - 1e-9) * step;
  for (double v = t.lo; v <= t.hi + step * 1e-6; v += step) t.values.push_back(std::abs(v) < step * 1e-9 ? 0 : v);
  return t;
}

std::string short_number(double v) {
  const double a = std::abs(v);
  if (a >= 10000) return fmt::format("{:.0f}k", v / 1000);
  if (a >= 1000) return fmt::format("{:.1f}k", v / 1000);
  if (a >= 100 || a == std::floor(a)) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2g}", v);
}

Svg::Svg(double width, double height, std::string kind, std::string label)
    : width_(width), height_(height), kind_(std::move(kind)), label_(std::move(label)) {}

namespace {
std::string title_element(const std::string& title) {
  return title.empty() ? std::string() : "<title>" + xml_escape(title) + "</title>";
}
}  // namespace

void Svg::rect(double x, double y, double w, double h, const std::string& cls, const std::string& title) {
  const std::string open = fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" class="{}")", x, y,
                                       std::max(0.0, w), std::max(0.0, h), cls);
  body_ += title.empty() ? open + "/>\n" : open + ">" + title_element(title) + "</rect>\n";
}

void Svg::line(double x1, double y1, double x2, double y2, const std::string& cls) {
  body_ += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" class="{}"/>)", x1, y1, x2, y2, cls) + "\n";
}

void Svg::circle(double cx, double cy, double r, const std::string& cls, const std::string& title) {
  const std::string open = fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="{:.1f}" class="{}")", cx, cy, r, cls);
  body_ += title.empty() ? open + "/>\n" : open + ">" + title_element(title) + "</circle>\n";
}

void Svg::path(const std::string& d, const std::string& cls, const std::string& title) {
  const std::string open = fmt::format(R"(<path d="{}" class="{}")", d, cls);
  body_ += title.empty() ? open + "/>\n" : open + ">" + title_element(title) + "</path>\n";
}

void Svg::text(double x, double y, const std::string& s, const std::string& cls, const std::string& anchor,
               double rotate) {
  const std::string transform =
      rotate == 0 ? std::string() : fmt::format(R"x( transform="rotate({:.0f} {:.1f} {:.1f})")x", rotate, x, y);
  body_ += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="{}" text-anchor="{}"{}>{}</text>)", x, y, cls, anchor,
                       transform, xml_escape(s)) +
           "\n";
}

std::string Svg::str() const {
  return fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" class="plot" data-plot="{}" role="img" aria-label="{}" )"
                     R"(width="{:.0f}" height="{:.0f}" viewBox="0 0 {:.0f} {:.0f}">)",
                     xml_escape(kind_), xml_escape(label_), width_, height_, width_, height_) +
         "\n" + body_ + "</svg>\n";
}

double Frame::y(double value) const {
  const double span = y_hi > y_lo ? y_hi - y_lo : 1;
  const double t = std::clamp((value - y_lo) / span, 0.0, 1.0);
  return bottom() - t * height;
}

void draw_y_axis(Svg& svg, const Frame& f, const Ticks& ticks, const std::string& label) {
  for (double v : ticks.values) {
    const double y = f.y(v);
    svg.line(f.left, y, f.right(), y, "grid");
    svg.text(f.left - 4, y + 3.5, short_number(v), "tick", "end");
  }
  svg.line(f.left, f.top, f.left, f.bottom(), "axis");
  svg.text(12, f.top + f.height / 2, label, "axis-label", "middle", -90);
}

void draw_x_axis(Svg& svg, const Frame& f, const std::string& label, double label_y) {
  svg.line(f.left, f.bottom(), f.right(), f.bottom(), "axis");
  svg.text(f.left + f.width / 2, label_y, label, "axis-label", "middle");
}

}  // namespace ako::report
