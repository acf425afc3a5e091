#include "exec/worker/cuda_session.hpp"

#include "exec/worker/fault.hpp"

namespace ako::exec {

CudaSession::CudaSession(int ordinal) {
  check(cuInit(0), "cuInit");
  check(cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  try {
    check(cuCtxSetCurrent(context_), "cuCtxSetCurrent");
    check(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  } catch (...) {
    cuDevicePrimaryCtxRelease(device_);
    throw;
  }
}

CudaSession::~CudaSession() {
  if (stream_) cuStreamDestroy(stream_);
  cuDevicePrimaryCtxRelease(device_);
}

int CudaSession::attribute(CUdevice_attribute a) const {
  int v = 0;
  check(cuDeviceGetAttribute(&v, a, device_), "cuDeviceGetAttribute");
  return v;
}

}  // namespace ako::exec
