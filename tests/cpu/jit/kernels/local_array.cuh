// A kernel whose dynamically indexed local array must live in the stack frame.
extern "C" __global__ void local_array_kernel(float* out, const int* idx) {
  float buf[256];
  for (int j = 0; j < 256; ++j) buf[j] = out[j * blockDim.x + threadIdx.x];
  out[threadIdx.x] = buf[idx[threadIdx.x] & 255];
}
