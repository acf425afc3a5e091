#include "exec/worker/device_report_writer.hpp"

#include <cuda.h>

#include "cuda/fault.hpp"
#include "exec/protocol/device_report.hpp"

namespace ako::exec {

void report_device_early(const std::filesystem::path& file) {
  DeviceReport r;
  try {
    cuda::check(cuInit(0), "cuInit");
    cuda::check(cuDeviceGetCount(&r.count), "cuDeviceGetCount");
    CUdevice dev = 0;
    cuda::check(cuDeviceGet(&dev, 0), "cuDeviceGet(0)");
    cuda::check(cuDeviceGetAttribute(&r.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
                "cuDeviceGetAttribute(compute capability)");
    cuda::check(cuDeviceGetAttribute(&r.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
                "cuDeviceGetAttribute(compute capability)");
    char name[256] = {};
    cuda::check(cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
    r.name = name;
    cuDriverGetVersion(&r.driver_version);
    r.ok = true;
  } catch (const std::exception& e) {
    r.error = e.what();
    write_device_report(file, r);
    throw;
  }
  write_device_report(file, r);
}

}  // namespace ako::exec
