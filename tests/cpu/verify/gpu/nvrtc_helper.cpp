#include "nvrtc_helper.hpp"

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <nvrtc.h>

namespace ako::verify::test {

namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) throw std::runtime_error(std::string(what) + ": " + nvrtcGetErrorString(r));
}

}  // namespace

std::map<std::string, PtxasReport> parse_ptxas_log(const std::string& log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex props(R"(Function properties for (\S+))");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex regs(R"(Used (\d+) registers)");
  std::map<std::string, PtxasReport> out;
  std::string current;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, entry) || std::regex_search(line, m, props)) {
      current = m[1];
      out[current];
    } else if (!current.empty() && std::regex_search(line, m, frame)) {
      out[current].stack_bytes = std::stoi(m[1]);
      out[current].spill_stores = std::stoi(m[2]);
      out[current].spill_loads = std::stoi(m[3]);
    } else if (!current.empty() && std::regex_search(line, m, regs)) {
      out[current].registers = std::stoi(m[1]);
    }
  }
  return out;
}

NvrtcOutput nvrtc_compile(const std::filesystem::path& source,
                          const std::vector<std::string>& name_expressions, const std::string& arch) {
  const std::string code = read_file(source);
  const std::string cuda = AKO_DEFAULT_CUDA_HOME;
  nvrtcProgram prog;
  check(nvrtcCreateProgram(&prog, code.c_str(), source.filename().c_str(), 0, nullptr, nullptr),
        "nvrtcCreateProgram");
  for (const auto& e : name_expressions) check(nvrtcAddNameExpression(prog, e.c_str()), "nvrtcAddNameExpression");

  // Quoted includes resolve next to the source, as the jit stage does.
  const std::vector<std::string> options = {
      "-arch=" + arch, "-std=c++17", "--ptxas-options=-v",
      "-I" + cuda + "/include", "-I" + cuda + "/include/cccl",
      "-I" + source.parent_path().string()};
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());

  NvrtcOutput out;
  out.ok = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data()) == NVRTC_SUCCESS;
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  out.log.resize(log_size);
  nvrtcGetProgramLog(prog, out.log.data());
  while (!out.log.empty() && out.log.back() == '\0') out.log.pop_back();  // size counts the NUL
  if (out.ok) {
    size_t n = 0;
    check(nvrtcGetCUBINSize(prog, &n), "nvrtcGetCUBINSize");
    out.cubin.resize(n);
    check(nvrtcGetCUBIN(prog, out.cubin.data()), "nvrtcGetCUBIN");
    for (const auto& e : name_expressions) {
      const char* lowered = nullptr;
      check(nvrtcGetLoweredName(prog, e.c_str(), &lowered), "nvrtcGetLoweredName");
      out.lowered[e] = lowered;  // copy: the string belongs to the program
    }
    out.resources = parse_ptxas_log(out.log);
  }
  nvrtcDestroyProgram(&prog);
  return out;
}

}  // namespace ako::verify::test
