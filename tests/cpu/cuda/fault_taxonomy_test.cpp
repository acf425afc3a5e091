// cuda/fault_taxonomy: the CUresult -> fault name and stickiness mapping behind every CudaFault.
// Pure functions of the code: this binary is not linked to the CUDA driver.
#include <gtest/gtest.h>

#include "cuda/fault.hpp"

namespace ako::cuda {
namespace {

TEST(FaultTaxonomy, NamesTheFaultsACandidateCanCause) {
  EXPECT_EQ(fault_name(CUDA_ERROR_ILLEGAL_ADDRESS), "illegal_address");
  EXPECT_EQ(fault_name(CUDA_ERROR_MISALIGNED_ADDRESS), "misaligned");
  EXPECT_EQ(fault_name(CUDA_ERROR_ILLEGAL_INSTRUCTION), "illegal_instruction");
  EXPECT_EQ(fault_name(CUDA_ERROR_LAUNCH_FAILED), "trap");  // __trap(), measured on the H100
  EXPECT_EQ(fault_name(CUDA_ERROR_ASSERT), "trap");         // device-side assert()
  EXPECT_EQ(fault_name(CUDA_ERROR_HARDWARE_STACK_ERROR), "launch_failed");
  EXPECT_EQ(fault_name(CUDA_ERROR_INVALID_PC), "launch_failed");
  EXPECT_EQ(fault_name(CUDA_ERROR_INVALID_ADDRESS_SPACE), "launch_failed");
  EXPECT_EQ(fault_name(CUDA_ERROR_LAUNCH_TIMEOUT), "timeout");
  EXPECT_EQ(fault_name(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES), "out_of_resources");
  EXPECT_EQ(fault_name(CUDA_ERROR_INVALID_VALUE), "invalid_value");
}

TEST(FaultTaxonomy, AnyOtherErrorIsACudaError) {
  EXPECT_EQ(fault_name(CUDA_ERROR_OUT_OF_MEMORY), "cuda_error");
  EXPECT_EQ(fault_name(CUDA_ERROR_NO_DEVICE), "cuda_error");
  EXPECT_EQ(fault_name(CUDA_ERROR_UNKNOWN), "cuda_error");
}

TEST(FaultTaxonomy, StickyAreTheErrorsThatLeaveTheContextUnusable) {
  for (CUresult r : {CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_ILLEGAL_INSTRUCTION,
                     CUDA_ERROR_ASSERT, CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_HARDWARE_STACK_ERROR,
                     CUDA_ERROR_INVALID_PC, CUDA_ERROR_INVALID_ADDRESS_SPACE, CUDA_ERROR_LAUNCH_TIMEOUT,
                     CUDA_ERROR_ECC_UNCORRECTABLE, CUDA_ERROR_CONTEXT_IS_DESTROYED, CUDA_ERROR_UNKNOWN})
    EXPECT_TRUE(fault_is_sticky(r)) << r;
  for (CUresult r : {CUDA_SUCCESS, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
                     CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_NO_DEVICE, CUDA_ERROR_NOT_FOUND})
    EXPECT_FALSE(fault_is_sticky(r)) << r;
}

}  // namespace
}  // namespace ako::cuda
