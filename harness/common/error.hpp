#pragma once
// Errors that end a command. Every ako error names what went wrong and how to fix it;
// the CLI maps them to exit codes (see cli/exit_codes.hpp).
#include <stdexcept>
#include <string>

namespace ako {

// Usage, spec, build or environment errors: the command cannot produce a verdict (exit 2).
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A task spec (or config) file that does not match its documented format.
// The message always names the file, the field and what is expected.
struct SpecError : Error {
  SpecError(const std::string& file, const std::string& field, const std::string& expected)
      : Error(file + ": field '" + field + "': " + expected), file(file), field(field) {}
  std::string file, field;
};

}  // namespace ako
