#pragma once
// Option checks for numbers with a plain message. CLI11's PositiveNumber / NonNegativeNumber
// (the Debian 2.3 release) say "Value -1 not in range 0.000000 to 1797693...": DBL_MAX in full.
#include <charconv>
#include <string>

#include <CLI/CLI.hpp>

namespace ako::cli {

namespace number_checks_detail {
inline CLI::Validator number_at_least(bool allow_zero) {
  return CLI::Validator(
      [allow_zero](std::string& text) -> std::string {
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || end != text.data() + text.size()) return "expected a number, got " + text;
        if (allow_zero ? !(v >= 0) : !(v > 0))  // written so that nan fails too
          return std::string(allow_zero ? "expected 0 or more" : "expected more than 0") + ", got " + text;
        return "";
      },
      allow_zero ? "NONNEGATIVE" : "POSITIVE");
}
}  // namespace number_checks_detail

// > 0
inline const CLI::Validator kPositive = number_checks_detail::number_at_least(false);
// >= 0
inline const CLI::Validator kNonNegative = number_checks_detail::number_at_least(true);

}  // namespace ako::cli
