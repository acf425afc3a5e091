#pragma once
// The device's copy bandwidth, measured once per device and cached as JSON in the job's
// cache_dir (file copy-bandwidth-<uuid>.json), so every run's roofline uses the same figure.
#include <cuda.h>

#include <string>

#include "result/run_result.hpp"

namespace ako::exec {

// Sets device.copy_bandwidth_gbs and copy_bandwidth_source ("measured", or "cached <file>").
// Measures when remeasure is set, when cache_dir is empty, or when no valid entry for this
// uuid and driver version exists; a fresh measurement is written back when cache_dir is set.
void attach_copy_bandwidth(DeviceInfo& device, CUstream stream, const std::string& cache_dir,
                           bool remeasure);

}  // namespace ako::exec
