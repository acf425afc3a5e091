#pragma once
// What a compile child tells its parent through the pipe, as length-prefixed fields (the
// cubin is binary): stored in the cache; compiled but not stored, because the cache cannot be
// written (the program travels back, for the parent to keep in its scratch folder); failed;
// or out of memory.
#include <optional>
#include <string>

#include "jit/build.hpp"

namespace ako::jit {

struct ChildReport {
  enum class Status { stored, not_stored, failed, out_of_memory };
  Status status = Status::failed;
  std::string text;                     // not_stored: why; failed / out_of_memory: the error
  std::optional<BuiltProgram> program;  // not_stored only
};

std::string encode(const ChildReport& r);
// nullopt when the bytes are not a whole report (a child killed while writing it).
std::optional<ChildReport> decode(const std::string& bytes);

}  // namespace ako::jit
