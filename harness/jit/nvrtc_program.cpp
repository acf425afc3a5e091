#include "jit/nvrtc_program.hpp"

#include <atomic>

#include "common/error.hpp"

namespace ako::jit {

namespace {
std::atomic<long> g_compile_calls{0};

void check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) throw Error(std::string("NVRTC ") + what + ": " + nvrtcGetErrorString(r));
}
}  // namespace

long detail::nvrtc_compile_calls() { return g_compile_calls.load(); }

NvrtcProgram::NvrtcProgram(const std::string& source, const std::string& name) {
  check(nvrtcCreateProgram(&prog_, source.c_str(), name.c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
}

NvrtcProgram::~NvrtcProgram() {
  if (prog_) nvrtcDestroyProgram(&prog_);
}

void NvrtcProgram::add_name_expression(const std::string& expr) {
  check(nvrtcAddNameExpression(prog_, expr.c_str()), ("nvrtcAddNameExpression(" + expr + ")").c_str());
}

bool NvrtcProgram::compile(const std::vector<std::string>& options) {
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());
  ++g_compile_calls;
  const nvrtcResult r = nvrtcCompileProgram(prog_, static_cast<int>(argv.size()), argv.data());
  if (r == NVRTC_ERROR_COMPILATION) return false;
  check(r, "nvrtcCompileProgram");  // e.g. an invalid option: not the source's fault
  return true;
}

std::string NvrtcProgram::log() const {
  size_t size = 0;
  check(nvrtcGetProgramLogSize(prog_, &size), "nvrtcGetProgramLogSize");
  std::string log(size, '\0');
  check(nvrtcGetProgramLog(prog_, log.data()), "nvrtcGetProgramLog");
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

std::string NvrtcProgram::cubin() const {
  size_t size = 0;
  check(nvrtcGetCUBINSize(prog_, &size), "nvrtcGetCUBINSize");
  std::string bytes(size, '\0');
  if (size) check(nvrtcGetCUBIN(prog_, bytes.data()), "nvrtcGetCUBIN");
  return bytes;
}

std::string NvrtcProgram::ptx() const {
  size_t size = 0;
  check(nvrtcGetPTXSize(prog_, &size), "nvrtcGetPTXSize");
  std::string text(size, '\0');
  if (size) check(nvrtcGetPTX(prog_, text.data()), "nvrtcGetPTX");
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

std::map<std::string, std::string> NvrtcProgram::lowered_names(
    const std::vector<std::string>& exprs) const {
  std::map<std::string, std::string> out;
  for (const auto& e : exprs) {
    const char* lowered = nullptr;
    check(nvrtcGetLoweredName(prog_, e.c_str(), &lowered), ("nvrtcGetLoweredName(" + e + ")").c_str());
    out[e] = lowered;
  }
  return out;
}

}  // namespace ako::jit
