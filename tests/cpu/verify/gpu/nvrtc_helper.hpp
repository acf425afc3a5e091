#pragma once
// A minimal NVRTC front end for the verify tests: compile one .cuh for sm_90a with the
// harness's include paths and ptxas -v, return the cubin, lowered names and per-kernel
// ptxas resources. (The jit stage does this for real, with its cache; these tests only
// need to know that the kernels compile and what ptxas made of them.)
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ako::verify::test {

struct PtxasReport {
  int registers = -1;
  int stack_bytes = -1;
  int spill_stores = -1;
  int spill_loads = -1;
};

struct NvrtcOutput {
  bool ok = false;
  std::string log;                                   // NVRTC log including ptxas -v lines
  std::vector<char> cubin;
  std::map<std::string, std::string> lowered;        // name expression -> lowered name
  std::map<std::string, PtxasReport> resources;      // lowered name -> ptxas report
};

NvrtcOutput nvrtc_compile(const std::filesystem::path& source,
                          const std::vector<std::string>& name_expressions,
                          const std::string& arch = "sm_90a");

// Parses "Compiling entry function", "N bytes stack frame, N bytes spill stores, ..." and
// "Used N registers" lines of a ptxas -v log, keyed by the entry's lowered name.
std::map<std::string, PtxasReport> parse_ptxas_log(const std::string& log);

}  // namespace ako::verify::test
