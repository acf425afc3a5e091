// A stand-in for the CUDA driver's libcuda.so.1 with just the calls ako's GPU probe makes
// (harness/exec/client/gpu_probe.cpp): one device of compute capability 9.0, so `ako run`,
// `ako tune` and `ako iterate` get past the probe on a machine without a GPU and start their
// worker, which the tests replace with ako_fake_worker (AKO_WORKER). Only for the CPU tests
// that kill ako at random points (tests/cpu/kill_support.hpp); put its folder first on
// LD_LIBRARY_PATH. It never backs a real worker: ako-worker needs the whole driver.
#include <cstring>

extern "C" {

int cuInit(unsigned) { return 0; }
int cuDriverGetVersion(int* v) {
  *v = 13000;
  return 0;
}
int cuDeviceGetCount(int* n) {
  *n = 1;
  return 0;
}
int cuDeviceGet(int* dev, int ordinal) {
  *dev = ordinal;
  return ordinal == 0 ? 0 : 101;   // CUDA_ERROR_INVALID_DEVICE
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
int cuDeviceGetName(char* name, int len, int) {
  std::strncpy(name, "ako fake GPU", static_cast<size_t>(len));
  if (len > 0) name[len - 1] = '\0';
  return 0;
}

}  // extern "C"
