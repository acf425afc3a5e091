#pragma once
// One request made ready for NVRTC (toolkit found, options fixed, key computed), and the
// compile of such a request into a cache directory. compiler.cpp and compile_pool.cpp share it.
#include <filesystem>
#include <string>
#include <vector>

#include "jit/compiler.hpp"
#include "jit/disk_cache.hpp"
#include "jit/toolkit.hpp"

namespace ako::jit {

struct PreparedRequest {
  CompileRequest request;
  Toolkit toolkit;
  std::string source_text;           // the bytes the key was computed over, compiled as is
  // The name NVRTC gets: it looks up the program's quoted includes next to this path, read from
  // the current folder. The display name when that is the source itself, else the absolute path
  // (a run with --root elsewhere must not read the current folder's copy of a header).
  std::string program_name;
  std::vector<std::string> name_expressions;  // sorted, each once
  std::vector<std::string> options;  // exactly what NVRTC gets
  std::string key;
};

// Validates the request (real arch, readable source, no -arch in extra_options), resolves the
// toolkit and computes options and key. Throws ako::Error.
PreparedRequest prepare(const CompileRequest& req, const CompileOptions& opt);

// What NVRTC made of a request, before it is stored anywhere.
struct BuiltProgram {
  std::string cubin, ptx;
  BuildRecord record;
  CompiledModule module;  // lowered names, resources, log, compile_ms; no paths yet
};

// Runs NVRTC on the request in this process. Throws CompileError when NVRTC rejects the
// source (an out-of-memory one included: its log says so), ako::Error otherwise.
BuiltProgram build(const PreparedRequest& p);

// build(), then stores the result as a cache entry in `dir`; when `dir` cannot be written
// (WriteError), in scratch_dir() instead, and `fallback` (if given) gets the error's text.
CompiledModule build_into(const PreparedRequest& p, const std::filesystem::path& dir,
                          std::string* fallback = nullptr);

// A directory private to this process for compiles that must not use the cache (or cannot);
// made on first use, removed when the process exits normally.
std::filesystem::path scratch_dir();

}  // namespace ako::jit
