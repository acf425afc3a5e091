#pragma once
// One request made ready for NVRTC (toolkit found, options fixed, key computed), and the
// compile of such a request into a cache directory. compiler.cpp and compile_pool.cpp share it.
#include <filesystem>
#include <string>
#include <vector>

#include "jit/compiler.hpp"
#include "jit/toolkit.hpp"

namespace ako::jit {

struct PreparedRequest {
  CompileRequest request;
  Toolkit toolkit;
  std::string source_text;           // the bytes the key was computed over, compiled as is
  std::vector<std::string> name_expressions;  // sorted, each once
  std::vector<std::string> options;  // exactly what NVRTC gets
  std::string key;
};

// Validates the request (real arch, readable source, no -arch in extra_options), resolves the
// toolkit and computes options and key. Throws ako::Error.
PreparedRequest prepare(const CompileRequest& req, const CompileOptions& opt);

// Runs NVRTC on the request in this process and stores the result as a cache entry in `dir`.
// Throws CompileError when NVRTC rejects the source, ako::Error otherwise.
CompiledModule build_into(const PreparedRequest& p, const std::filesystem::path& dir);

// A directory private to this process for compiles that must not use the cache; removed
// when the process exits normally.
std::filesystem::path scratch_dir();

}  // namespace ako::jit
