#include "report/report.hpp"

#include <fmt/format.h>

#include "common/atomic_file.hpp"
#include "report/render.hpp"

namespace ako::report {

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t i = text.find(what); i != std::string::npos; i = text.find(what, i + what.size())) ++n;
  return n;
}

}  // namespace

ReportOutcome write_report(const ReportRequest& request, const std::filesystem::path& out_dir, const Say& say) {
  const ReportData data = collect_report_data(request, say);
  const std::string html = render_html(data), md = render_markdown(data);
  std::filesystem::create_directories(out_dir);
  ReportOutcome o;
  o.html = out_dir / "report.html";
  o.markdown = out_dir / "report.md";
  write_file_atomically(o.html, html);
  write_file_atomically(o.markdown, md);
  o.html_bytes = html.size();
  o.figures = count(html, "<svg ");
  o.missing = data.missing;
  say(fmt::format("wrote {} ({} figures, {} KB) and {}", o.html.string(), o.figures, (html.size() + 1023) / 1024,
                  o.markdown.string()));
  return o;
}

}  // namespace ako::report
