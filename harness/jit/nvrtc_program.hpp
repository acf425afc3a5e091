#pragma once
// RAII owner of one nvrtcProgram, and the process-wide count of nvrtcCompileProgram calls
// (tests use it to prove that a cache hit, or the parent of compile_all, never compiles).
#include <nvrtc.h>

#include <map>
#include <string>
#include <vector>

namespace ako::jit {

namespace detail {
// Number of nvrtcCompileProgram calls made by this process so far.
long nvrtc_compile_calls();
}  // namespace detail

class NvrtcProgram {
 public:
  NvrtcProgram(const std::string& source, const std::string& name);
  ~NvrtcProgram();
  NvrtcProgram(const NvrtcProgram&) = delete;
  NvrtcProgram& operator=(const NvrtcProgram&) = delete;

  void add_name_expression(const std::string& expr);  // before compile()
  // Returns false when NVRTC rejects the program; log() then says why.
  bool compile(const std::vector<std::string>& options);
  std::string log() const;
  std::string cubin() const;  // empty when NVRTC made none (virtual arch)
  // The PTX NVVM produced on the way to the cubin (NVRTC keeps it for a real arch too).
  std::string ptx() const;
  // Name expression -> lowered name, copied out: the strings belong to the program.
  std::map<std::string, std::string> lowered_names(const std::vector<std::string>& exprs) const;

 private:
  nvrtcProgram prog_ = nullptr;
};

}  // namespace ako::jit
