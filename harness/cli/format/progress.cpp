#include "cli/format/progress.hpp"

#include <fmt/format.h>

namespace ako::cli {

void Progress::draw(const std::string& line) {
  if (!enabled_) return;
  // \r + erase-line keeps a single line; the text is cut at 100 columns so it never wraps.
  fmt::print(stream_, "\r\x1b[2K{}", line.substr(0, 100));
  std::fflush(stream_);
  drawn_ = true;
}

void Progress::note(const std::string& text) { draw(text); }

void Progress::update(int done, int total, const std::string& label, const std::string& what) {
  draw(fmt::format("[{}/{}] {}: {}", done + 1, total, label, what));
}

void Progress::clear() {
  if (!enabled_ || !drawn_) return;
  fmt::print(stream_, "\r\x1b[2K");
  std::fflush(stream_);
  drawn_ = false;
}

}  // namespace ako::cli
