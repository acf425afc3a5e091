#pragma once
// Cubins loaded once per worker (cuLibraryLoadData, keyed by path) and their kernels resolved
// once (cuLibraryGetKernel + cuKernelGetFunction, keyed by path and lowered name).
#include <cuda.h>

#include <map>
#include <string>
#include <utility>

namespace ako::exec {

class ModuleCache {
 public:
  ModuleCache() = default;
  ~ModuleCache();
  ModuleCache(const ModuleCache&) = delete;
  ModuleCache& operator=(const ModuleCache&) = delete;

  // Throws ako::Error when the file cannot be read, cuda::CudaFault when loading or lookup fails
  // (CUDA_ERROR_NOT_FOUND names a lowered name missing from the cubin).
  CUfunction function(const std::string& cubin_path, const std::string& lowered_name);

 private:
  CUlibrary library(const std::string& cubin_path);

  std::map<std::string, CUlibrary> libraries_;
  std::map<std::pair<std::string, std::string>, CUfunction> functions_;
};

}  // namespace ako::exec
