#pragma once
// Stand-in for SGLang's <sgl_kernel/utils.h> (host helpers), written for ako's port tests:
// RuntimeCheck throws host::PanicError with its arguments streamed into the message.
#include <sstream>
#include <stdexcept>
#include <string>

namespace host {

struct PanicError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename... Args>
inline void RuntimeCheck(bool ok, const Args&... args) {
  if (ok) return;
  std::ostringstream os;
  (os << ... << args);
  throw PanicError(os.str().empty() ? std::string("check failed") : os.str());
}

}  // namespace host
