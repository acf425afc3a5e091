#pragma once
// Is there a GPU, and which? Asked by ako itself, which never links the CUDA driver (it must
// start on CI machines without one, build_notes.md): libcuda.so.1 is dlopen'ed here and only
// the five calls needed are looked up. The driver applies CUDA_VISIBLE_DEVICES itself, so the
// answer is what a worker started with the same environment will see.
#include <string>
#include <vector>

namespace ako::exec {

// One visible device, as the driver numbers it.
struct GpuDevice {
  int ordinal = 0;
  std::string name;
  std::string uuid;        // "GPU-8f3a…" (cuDeviceGetUuid), the form CUDA_VISIBLE_DEVICES takes; empty when unknown
  int major = 0, minor = 0;
};

struct GpuProbe {
  bool available = false;
  std::string reason;      // why not available, in words (empty when available)
  int count = 0;           // visible devices
  int major = 0, minor = 0;  // compute capability of device 0, the one the worker uses
  std::string name;        // device 0's name
  int driver_version = 0;  // cuDriverGetVersion, e.g. 13000 (0 when unknown)
  std::vector<GpuDevice> devices;  // every visible device, device 0 first (ako tune --gpus)
};

// Never throws: every failure becomes available = false with a reason.
GpuProbe probe_gpu();

// The NVRTC/ptxas target for a compute capability. The arch-specific 'a' variant is used for
// 9.0 (sm_90a: wgmma, TMA multicast, setmaxnreg) and 10.x (sm_100a/sm_103a: tcgen05, TMEM):
// there the engine's own kernels are built for the 'a' target and the tuned code may use those
// instructions; an 'a' cubin runs only on that exact capability, which is what a per-device
// JIT wants anyway. Elsewhere the plain sm_XY target is used: for 7.5-8.9 no 'a' variant
// exists, and for 11.x/12.x the 'a' extras are niche (block-scaled MMA) while the plain cubin
// also runs on later minors of the same major (an sm_120 cubin runs on 12.1). NVRTC 13.0
// accepts 75 80 86 87 88 89 90 100 103 110 120 121 (cuda_tech.md); an older capability still
// maps to sm_XY and NVRTC rejects it with its own message.
std::string arch_for(int major, int minor);

}  // namespace ako::exec
