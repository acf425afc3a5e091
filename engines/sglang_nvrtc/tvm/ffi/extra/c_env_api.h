#pragma once
// <tvm/ffi/extra/c_env_api.h> for NVRTC: the one tvm-ffi call sgl_kernel/utils.cuh's host
// launcher names (the stream of a device). Parsed, never emitted or called.
#include <cstdint>

void* TVMFFIEnvGetStream(int32_t device_type, int32_t device_id);
