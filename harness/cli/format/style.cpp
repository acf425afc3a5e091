#include "cli/format/style.hpp"

#include <cstdlib>
#include <unistd.h>

namespace ako::cli {

bool is_terminal(std::FILE* stream) { return ::isatty(::fileno(stream)) == 1; }

Style style_for(std::FILE* stream, ColorMode mode) {
  Style s;
  if (mode == ColorMode::always) s.color = true;
  if (mode == ColorMode::automatic) {
    const char* no_color = std::getenv("NO_COLOR");
    s.color = is_terminal(stream) && !(no_color && *no_color);
  }
  return s;
}

}  // namespace ako::cli
