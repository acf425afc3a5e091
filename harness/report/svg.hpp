#pragma once
// The few SVG primitives the report's figures are drawn with: ako writes its own inline SVG, so
// the page needs no plotting library and fetches nothing when opened. Colours and line styles
// come from CSS classes the page defines (html_page.cpp); hover text is an SVG <title>.
#include <string>
#include <string_view>
#include <vector>

namespace ako::report {

// Text for XML content and attribute values (& < > " ').
std::string xml_escape(std::string_view s);

// Round tick values covering [lo, hi] (about `target` of them, steps of 1, 2 or 5 x 10^k); lo
// and hi are widened to the outer ticks.
struct Ticks {
  std::vector<double> values;
  double lo = 0, hi = 1;
};
Ticks nice_ticks(double lo, double hi, int target = 5);

// A tick or value as short text: "0", "2.5", "120", "1.2k".
std::string short_number(double v);

// One <svg> element built up in drawing order. `kind` goes into data-plot (what the figure
// is, which the render test looks for); `label` is its accessible name.
class Svg {
 public:
  Svg(double width, double height, std::string kind, std::string label);
  double width() const { return width_; }
  double height() const { return height_; }

  void rect(double x, double y, double w, double h, const std::string& cls, const std::string& title = "");
  void line(double x1, double y1, double x2, double y2, const std::string& cls);
  void circle(double cx, double cy, double r, const std::string& cls, const std::string& title = "");
  void path(const std::string& d, const std::string& cls, const std::string& title = "");
  // anchor: start, middle or end; rotate: degrees about (x, y).
  void text(double x, double y, const std::string& s, const std::string& cls, const std::string& anchor = "start",
            double rotate = 0);
  std::string str() const;

 private:
  double width_, height_;
  std::string kind_, label_, body_;
};

// A plotting area inside an Svg: pixel box plus the value range of its y axis.
struct Frame {
  double left = 0, top = 0, width = 0, height = 0;
  double y_lo = 0, y_hi = 1;
  double bottom() const { return top + height; }
  double right() const { return left + width; }
  double y(double value) const;  // value -> pixel (clamped to the frame)
};

// Horizontal grid lines with their tick labels, the y axis line and its label (rotated).
void draw_y_axis(Svg& svg, const Frame& f, const Ticks& ticks, const std::string& label);
// The x axis line and its label under the frame (labels of the categories are the caller's).
void draw_x_axis(Svg& svg, const Frame& f, const std::string& label, double label_y);

}  // namespace ako::report
