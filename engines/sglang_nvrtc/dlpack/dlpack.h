#pragma once
// <dlpack/dlpack.h> for NVRTC: the DLPack vocabulary sgl_kernel's headers name at namespace
// scope (device-type constants, DLDevice, DLDataType), with the values the DLPack spec fixes.
// The real header is host-side (tvm-ffi ships it); the device code never touches these.
#include <cstdint>

enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLROCM = 10, kDLROCMHost = 11 };
struct DLDevice {
  DLDeviceType device_type;
  int32_t device_id;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
