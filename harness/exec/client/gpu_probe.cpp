#include "exec/client/gpu_probe.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

namespace ako::exec {
namespace {

// The few driver types and constants needed, spelled as cuda.h spells them (ABI-stable), so
// this file needs neither the driver nor its headers.
using CUresult = int;
using CUdevice = int;
struct CUuuid {
  unsigned char bytes[16];
};
constexpr CUresult kCudaSuccess = 0;
constexpr int kAttrComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
constexpr int kAttrComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR

struct DriverApi {
  CUresult (*cuInit)(unsigned) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;  // optional, for messages
  CUresult (*cuDriverGetVersion)(int*) = nullptr;                // optional
  CUresult (*cuDeviceGetUuid)(CUuuid*, CUdevice) = nullptr;      // optional (the _v2 when there)
};

template <class Fn>
bool lookup(void* lib, const char* symbol, Fn& out) {
  out = reinterpret_cast<Fn>(dlsym(lib, symbol));
  return out != nullptr;
}

// Returns the first required symbol that is missing, or nullptr when all were found.
const char* load_symbols(void* lib, DriverApi& api) {
  lookup(lib, "cuGetErrorName", api.cuGetErrorName);
  lookup(lib, "cuDriverGetVersion", api.cuDriverGetVersion);
  if (!lookup(lib, "cuDeviceGetUuid_v2", api.cuDeviceGetUuid)) lookup(lib, "cuDeviceGetUuid", api.cuDeviceGetUuid);
  if (!lookup(lib, "cuInit", api.cuInit)) return "cuInit";
  if (!lookup(lib, "cuDeviceGetCount", api.cuDeviceGetCount)) return "cuDeviceGetCount";
  if (!lookup(lib, "cuDeviceGet", api.cuDeviceGet)) return "cuDeviceGet";
  if (!lookup(lib, "cuDeviceGetAttribute", api.cuDeviceGetAttribute)) return "cuDeviceGetAttribute";
  if (!lookup(lib, "cuDeviceGetName", api.cuDeviceGetName)) return "cuDeviceGetName";
  return nullptr;
}

std::string error_text(const DriverApi& api, CUresult r) {
  const char* name = nullptr;
  if (api.cuGetErrorName && api.cuGetErrorName(r, &name) == kCudaSuccess && name)
    return fmt::format("{} ({})", name, r);
  return fmt::format("CUresult {}", r);
}

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it and CUDA_VISIBLE_DEVICES takes it.
std::string uuid_text(const CUuuid& u) {
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += fmt::format("{:02x}", u.bytes[i]);
  }
  return out;
}

// Device `ordinal`'s name, capability and UUID; an error text when the driver refuses.
std::string describe(const DriverApi& api, int ordinal, GpuDevice& d) {
  CUdevice dev = 0;
  if (CUresult r = api.cuDeviceGet(&dev, ordinal); r != kCudaSuccess)
    return fmt::format("cuDeviceGet({}) failed: {}", ordinal, error_text(api, r));
  d.ordinal = ordinal;
  if (CUresult r = api.cuDeviceGetAttribute(&d.major, kAttrComputeCapabilityMajor, dev); r != kCudaSuccess)
    return fmt::format("reading the compute capability failed: {}", error_text(api, r));
  if (CUresult r = api.cuDeviceGetAttribute(&d.minor, kAttrComputeCapabilityMinor, dev); r != kCudaSuccess)
    return fmt::format("reading the compute capability failed: {}", error_text(api, r));
  char name[256] = {};
  if (CUresult r = api.cuDeviceGetName(name, sizeof name - 1, dev); r != kCudaSuccess)
    return fmt::format("cuDeviceGetName failed: {}", error_text(api, r));
  d.name = name;
  CUuuid u{};
  if (api.cuDeviceGetUuid && api.cuDeviceGetUuid(&u, dev) == kCudaSuccess) d.uuid = uuid_text(u);
  return {};
}

GpuProbe unavailable(std::string reason) {
  GpuProbe p;
  p.reason = std::move(reason);
  return p;
}

}  // namespace

GpuProbe probe_gpu() {
  // The library stays loaded for the life of the process: unloading the driver after cuInit
  // is unsupported (its threads and atexit handlers point into it).
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    return unavailable(fmt::format("libcuda.so.1 could not be loaded ({}): no NVIDIA driver on this machine",
                                   why ? why : "unknown error"));
  }
  DriverApi api;
  if (const char* missing = load_symbols(lib, api))
    return unavailable(fmt::format("libcuda.so.1 has no symbol {} (driver too old?)", missing));

  if (CUresult r = api.cuInit(0); r != kCudaSuccess)
    return unavailable(fmt::format("cuInit failed: {} (no usable GPU; check CUDA_VISIBLE_DEVICES and the driver)",
                                   error_text(api, r)));
  GpuProbe p;
  if (CUresult r = api.cuDeviceGetCount(&p.count); r != kCudaSuccess)
    return unavailable(fmt::format("cuDeviceGetCount failed: {}", error_text(api, r)));
  if (p.count == 0) return unavailable("the driver sees no CUDA device (check CUDA_VISIBLE_DEVICES)");

  for (int i = 0; i < p.count; ++i) {
    GpuDevice d;
    // Device 0 is the one a plain run uses, as before; another the driver refuses is left out.
    if (std::string why = describe(api, i, d); !why.empty()) {
      if (i == 0) return unavailable(why);
      continue;
    }
    p.devices.push_back(std::move(d));
  }
  p.major = p.devices.front().major;
  p.minor = p.devices.front().minor;
  p.name = p.devices.front().name;
  if (api.cuDriverGetVersion) api.cuDriverGetVersion(&p.driver_version);
  p.available = true;
  return p;
}

std::string arch_for(int major, int minor) {
  const bool arch_specific = (major == 9 && minor == 0) || major == 10;
  return fmt::format("sm_{}{}{}", major, minor, arch_specific ? "a" : "");
}

}  // namespace ako::exec
