#pragma once
// Shared pieces of the jit tests: a temporary directory, the test kernels, entry reading.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "jit/compiler.hpp"

namespace ako::jit::testing {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "ako-jit-test-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

inline fs::path kernel_dir() { return fs::path(AKO_TEST_DIR) / "cpu" / "jit" / "kernels"; }

inline std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

inline CompileRequest scale_request(const fs::path& dir = kernel_dir()) {
  CompileRequest r;
  r.source = dir / "scale.cuh";
  r.display_name = "kernels/scale.cuh";
  r.name_expressions = {"scale_kernel<__nv_bfloat16, 256>", "scale_kernel<__half, 128>"};
  return r;
}

inline CompileRequest broken_request() {
  CompileRequest r;
  r.source = kernel_dir() / "broken.cuh";
  r.display_name = "kernels/broken.cuh";
  r.name_expressions = {"broken_kernel<float>"};
  return r;
}

inline CompileRequest local_array_request() {
  CompileRequest r;
  r.source = kernel_dir() / "local_array.cuh";
  r.display_name = "kernels/local_array.cuh";
  return r;
}

inline CompileOptions cached_in(const fs::path& dir) {
  CompileOptions o;
  o.cache_dir = dir / "cache";
  return o;
}

inline nlohmann::json entry_json(const CompileOptions& opt, const std::string& key) {
  return nlohmann::json::parse(read_text(opt.cache_dir / key.substr(0, 2) / (key + ".json")));
}

inline bool has_elf_magic(const fs::path& file) { return read_text(file).rfind("\x7f" "ELF", 0) == 0; }

}  // namespace ako::jit::testing
