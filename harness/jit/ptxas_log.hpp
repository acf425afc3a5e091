#pragma once
// Reads the resource report that `--ptxas-options=-v` leaves in the NVRTC log.
//
// The format on CUDA 13.0 (checked on this machine):
//   ptxas info    : Compiling entry function '_Z1kI6__halfLi8EEvPT_PKS1_i' for 'sm_90a'
//   ptxas info    : Function properties for _Z1kI6__halfLi8EEvPT_PKS1_i
//   ptxas         .     1024 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 32 registers, used 1 barriers, 1024 bytes cumulative stack size, 256 bytes smem
// ptxas leaves out "N bytes smem" when it is 0; 13.0 no longer prints "N bytes cmem[0]"
// (older releases did), so constant_bytes stays -1 unless the log has it.
#include <map>
#include <string>
#include <string_view>

#include "result/run_result.hpp"

namespace ako::jit {

// Lowered (mangled) entry-function name -> resources. Non-entry device functions that ptxas
// also reports ("Function properties for _Z3devPfi" with no "Compiling entry function") are
// not kernels and are left out. An empty or foreign log gives an empty map.
std::map<std::string, KernelResources> parse_ptxas_log(std::string_view log);

}  // namespace ako::jit
