#pragma once
// Splits an engine kernel file (.cuh) into what NVRTC can compile and what it cannot: the
// device part (kernels, traits, device helpers) and the host glue (the XxxKernel::run entry
// points over tvm-ffi views, TensorMatcher checks, LaunchKernel calls), plus the includes.
// A small scanner over namespace-level declarations (comments, strings, braces and
// preprocessor lines understood); no C++ parser is needed for code written in the engine's
// conventions, and anything it cannot place stays in the device part, where NVRTC judges it.
#include <string>
#include <vector>

namespace ako::port {

struct HostGlue {
  std::string kind;            // "struct", "class", "function", "alias" (a using naming removed glue) or "declaration"
  std::string name;            // e.g. "RMSNormKernel"
  std::string template_header; // e.g. "template <int64_t kDim, bool kUsePDL, typename DType>" or empty
  std::string entry;           // the run() signature inside a struct, e.g. "static void run(const tvm::ffi::TensorView input, ...)"
  int first_line = 0, last_line = 0;  // 1-based, in the engine file
};

struct IncludeLine {
  std::string target;          // "sgl_kernel/tensor.h"
  bool host_only = false;      // matches the profile's host_includes: dropped from the device part
  int line = 0;
};

struct SplitCuh {
  std::string device_text;     // the file with host glue and engine includes taken out (marked)
  std::vector<HostGlue> host_glue;
  std::vector<IncludeLine> includes;
};

// `host_markers`: a namespace-level declaration whose text contains one of them is host glue.
// `host_includes`: include-path prefixes of headers that serve only the host glue (tensor
// views, launchers, tvm-ffi); their #include lines are dropped (marked). Every other include
// stays: the device part is compiled against the engine's own device headers.
SplitCuh split_cuh(const std::string& text, const std::vector<std::string>& host_markers,
                   const std::vector<std::string>& host_includes);

}  // namespace ako::port
