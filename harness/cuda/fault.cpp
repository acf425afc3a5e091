// check() and the CUDA error text: the calls into the driver (cuGetErrorName, cuGetErrorString).
// The taxonomy itself is in fault_taxonomy.cpp.
#include "cuda/fault.hpp"

#include <string>

namespace ako::cuda {

std::string cuda_error_text(CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) name = "CUDA_ERROR_?";
  if (cuGetErrorString(r, &text) != CUDA_SUCCESS || !text) text = "unknown error";
  return std::string(name) + " (" + text + ")";
}

void check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  throw CudaFault(r, call, fault_name(r), fault_is_sticky(r));
}

}  // namespace ako::cuda
