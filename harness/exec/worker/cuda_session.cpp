#include "exec/worker/cuda_session.hpp"

#include "cuda/fault.hpp"

namespace ako::exec {

CudaSession::CudaSession(int ordinal) {
  cuda::check(cuInit(0), "cuInit");
  cuda::check(cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  cuda::check(cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  try {
    cuda::check(cuCtxSetCurrent(context_), "cuCtxSetCurrent");
    cuda::check(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
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
  cuda::check(cuDeviceGetAttribute(&v, a, device_), "cuDeviceGetAttribute");
  return v;
}

}  // namespace ako::exec
