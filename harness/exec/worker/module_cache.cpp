#include "exec/worker/module_cache.hpp"

#include <fstream>
#include <iterator>
#include <vector>

#include "common/error.hpp"
#include "cuda/fault.hpp"

namespace ako::exec {

namespace {
std::vector<char> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read cubin '" + path + "'");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
}  // namespace

ModuleCache::~ModuleCache() {
  for (auto& [path, lib] : libraries_) cuLibraryUnload(lib);
}

CUlibrary ModuleCache::library(const std::string& cubin_path) {
  if (auto it = libraries_.find(cubin_path); it != libraries_.end()) return it->second;
  const std::vector<char> image = read_file(cubin_path);
  CUlibrary lib = nullptr;
  cuda::check(cuLibraryLoadData(&lib, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
        "cuLibraryLoadData(" + cubin_path + ")");
  libraries_.emplace(cubin_path, lib);
  return lib;
}

CUfunction ModuleCache::function(const std::string& cubin_path, const std::string& lowered_name) {
  const auto key = std::make_pair(cubin_path, lowered_name);
  if (auto it = functions_.find(key); it != functions_.end()) return it->second;
  CUkernel kernel = nullptr;
  cuda::check(cuLibraryGetKernel(&kernel, library(cubin_path), lowered_name.c_str()),
        "cuLibraryGetKernel(" + lowered_name + ")");
  CUfunction fn = nullptr;
  cuda::check(cuKernelGetFunction(&fn, kernel), "cuKernelGetFunction(" + lowered_name + ")");
  functions_.emplace(key, fn);
  return fn;
}

}  // namespace ako::exec
