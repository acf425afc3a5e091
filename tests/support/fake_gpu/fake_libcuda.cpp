// A stand-in for the CUDA driver's libcuda.so.1 with just the calls ako's GPU probe makes
// (harness/exec/client/gpu_probe.cpp): devices of compute capability 9.0, so `ako run`,
// `ako tune` and `ako iterate` get past the probe on a machine without a GPU and start their
// worker, which the tests replace with ako_fake_worker (AKO_WORKER). Only for the CPU tests
// (tests/cpu/kill_support.hpp, the --gpus tests); put its folder first on LD_LIBRARY_PATH. It
// never backs a real worker: ako-worker needs the whole driver.
//   AKO_FAKE_GPU_COUNT  how many devices (default 1), named "ako fake GPU"
//   AKO_FAKE_GPU_NAMES  their names, comma separated (sets the count): a host of mixed models
// Device i's UUID is GPU-fa4e0000-0000-0000-0000-000000000<r><i>, r the Open MPI rank (0 outside
// mpirun): each rank of the MPI tests stands for a host of its own, with GPUs of its own.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::vector<std::string> names() {
  std::vector<std::string> out;
  if (const char* list = std::getenv("AKO_FAKE_GPU_NAMES"); list && *list) {
    std::string s = list;
    for (size_t begin = 0;;) {
      const size_t comma = s.find(',', begin);
      out.push_back(s.substr(begin, comma - begin));
      if (comma == std::string::npos) break;
      begin = comma + 1;
    }
    return out;
  }
  const char* count = std::getenv("AKO_FAKE_GPU_COUNT");
  out.assign(count ? std::max(1, std::atoi(count)) : 1, "ako fake GPU");
  return out;
}

}  // namespace

extern "C" {

int cuInit(unsigned) { return 0; }
int cuDriverGetVersion(int* v) {
  *v = 13000;
  return 0;
}
int cuDeviceGetCount(int* n) {
  *n = static_cast<int>(names().size());
  return 0;
}
int cuDeviceGet(int* dev, int ordinal) {
  *dev = ordinal;
  return ordinal >= 0 && ordinal < static_cast<int>(names().size()) ? 0 : 101;   // CUDA_ERROR_INVALID_DEVICE
}
int cuDeviceGetAttribute(int* v, int attribute, int) {
  switch (attribute) {
    case 75: *v = 9; return 0;   // compute capability major
    case 76: *v = 0; return 0;   // minor
  }
  return 1;                      // CUDA_ERROR_INVALID_VALUE
}
// NVRTC asks a driver that is already loaded for its private tables; there are none here.
int cuGetExportTable(const void** table, const void*) {
  *table = nullptr;
  return 801;   // CUDA_ERROR_NOT_SUPPORTED
}
int cuDeviceGetName(char* name, int len, int dev) {
  const auto all = names();
  if (dev < 0 || dev >= static_cast<int>(all.size())) return 101;
  std::strncpy(name, all[static_cast<size_t>(dev)].c_str(), static_cast<size_t>(len));
  if (len > 0) name[len - 1] = '\0';
  return 0;
}
int cuDeviceGetUuid_v2(unsigned char* uuid, int dev) {
  const unsigned char head[16] = {0xfa, 0x4e};
  std::memcpy(uuid, head, 16);
  uuid[15] = static_cast<unsigned char>(dev);
  if (const char* rank = std::getenv("OMPI_COMM_WORLD_RANK")) uuid[14] = static_cast<unsigned char>(std::atoi(rank));
  return 0;
}

}  // extern "C"
