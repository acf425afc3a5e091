#pragma once
// What the worker reports about its GPU (the "device" event).
#include <string>

#include "exec/worker/cuda_session.hpp"
#include "result/run_result.hpp"

namespace ako::exec {

// Name, arch ("sm_90a" on compute capability 9.0, whose arch-specific features the kernels
// may use; "sm_XY" otherwise), uuid, SM count, L2 size, driver and toolkit versions.
// The copy bandwidth is left to copy_bandwidth.hpp.
DeviceInfo describe_device(const CudaSession& cuda);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it.
std::string format_uuid(const CUuuid& u);

}  // namespace ako::exec
