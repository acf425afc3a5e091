#include "exec/worker/device_info.hpp"

#include <cstdio>

#include "cuda/fault.hpp"

namespace ako::exec {

std::string format_uuid(const CUuuid& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  char s[64];
  std::snprintf(s, sizeof s,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
                b[13], b[14], b[15]);
  return s;
}

DeviceInfo describe_device(const CudaSession& cuda) {
  DeviceInfo d;
  char name[256] = {};
  cuda::check(cuDeviceGetName(name, sizeof name, cuda.device()), "cuDeviceGetName");
  d.name = name;

  const int major = cuda.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  const int minor = cuda.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  d.arch = "sm_" + std::to_string(major) + std::to_string(minor) + (major == 9 && minor == 0 ? "a" : "");

  CUuuid uuid{};
  cuda::check(cuDeviceGetUuid(&uuid, cuda.device()), "cuDeviceGetUuid");
  d.uuid = format_uuid(uuid);

  d.sm_count = cuda.attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  d.l2_bytes = cuda.attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  d.rated_sm_clock_mhz = cuda.attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000;   // kHz
  cuda::check(cuDriverGetVersion(&d.driver_version), "cuDriverGetVersion");
  d.cuda_version = std::to_string(CUDA_VERSION / 1000) + "." + std::to_string(CUDA_VERSION % 1000 / 10);
  return d;
}

}  // namespace ako::exec
