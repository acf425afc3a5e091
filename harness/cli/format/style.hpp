#pragma once
// Colour only when the stream is a terminal, NO_COLOR is unset and the user did not say never.
#include <cstdio>
#include <string>

namespace ako::cli {

enum class ColorMode { automatic, always, never };

struct Style {
  bool color = false;
  std::string green(const std::string& s) const { return wrap("32", s); }
  std::string red(const std::string& s) const { return wrap("31", s); }
  std::string yellow(const std::string& s) const { return wrap("33", s); }
  std::string bold(const std::string& s) const { return wrap("1", s); }

 private:
  std::string wrap(const char* code, const std::string& s) const {
    return color ? "\x1b[" + std::string(code) + "m" + s + "\x1b[0m" : s;
  }
};

Style style_for(std::FILE* stream, ColorMode mode);
bool is_terminal(std::FILE* stream);

}  // namespace ako::cli
