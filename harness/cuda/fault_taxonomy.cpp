// Fault taxonomy: which CUDA errors a candidate can cause, and which of them leave the context
// unusable (cuda.h documents those as "the process must be terminated"). Pure functions of the
// CUresult: no driver call, so a CPU test links this file without libcuda.
#include "cuda/fault.hpp"

#include <string>

namespace ako::cuda {

std::string fault_name(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS: return "illegal_address";
    case CUDA_ERROR_MISALIGNED_ADDRESS: return "misaligned";
    case CUDA_ERROR_ILLEGAL_INSTRUCTION: return "illegal_instruction";
    // __trap() surfaces as CUDA_ERROR_LAUNCH_FAILED ("unspecified launch failure"), measured on
    // the H100 by scripts/gpu-smoke-worker.sh; cuda.h lists other causes for that code too
    // (e.g. out-of-bounds shared memory), so the reason always carries the CUDA error text.
    // A device-side assert() fails with CUDA_ERROR_ASSERT.
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ASSERT: return "trap";
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE: return "launch_failed";
    case CUDA_ERROR_LAUNCH_TIMEOUT: return "timeout";
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: return "out_of_resources";
    case CUDA_ERROR_INVALID_VALUE: return "invalid_value";
    default: return "cuda_error";
  }
}

bool fault_is_sticky(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_UNKNOWN:
      return true;
    default:
      return false;
  }
}

}  // namespace ako::cuda
