#pragma once
// A CUDA driver call that failed, classified for the result's fault taxonomy. Driver-level:
// exec/worker, measure/gpu and verify/gpu all throw it through check(); only the worker links
// the driver (fault_name and fault_is_sticky, in fault_taxonomy.cpp, are pure and need only cuda.h).
#include <cuda.h>

#include <stdexcept>
#include <string>
#include <utility>

namespace ako::cuda {

// "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)", from
// cuGetErrorName / cuGetErrorString.
std::string cuda_error_text(CUresult r);

// what() reads "<call>: <cuda_error_text(code)>".
struct CudaFault : std::runtime_error {
  CudaFault(CUresult code, std::string call, std::string fault, bool sticky)
      : std::runtime_error(call + ": " + cuda_error_text(code)),
        code(code), call(std::move(call)), fault(std::move(fault)), sticky(sticky) {}
  CUresult code;
  std::string call;    // "cuLaunchKernelEx(solution)", "cuStreamSynchronize", ...
  std::string fault;   // illegal_address, misaligned, trap, illegal_instruction,
                       // out_of_resources, launch_failed, invalid_value, cuda_error
  bool sticky;         // the context is unusable afterwards: the worker must exit
};

// Classify a CUresult (CUDA_ERROR_ILLEGAL_ADDRESS -> "illegal_address", sticky, ...).
// Sticky: the errors cuda.h documents as leaving the context unusable.
std::string fault_name(CUresult r);
bool fault_is_sticky(CUresult r);

// Throws CudaFault when r != CUDA_SUCCESS; `call` names the call for the message.
void check(CUresult r, const char* call);
inline void check(CUresult r, const std::string& call) { check(r, call.c_str()); }

}  // namespace ako::cuda
