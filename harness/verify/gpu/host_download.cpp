#include "verify/gpu/host_download.hpp"

#include <cstring>

#include "common/error.hpp"
#include "cuda/fault.hpp"
#include "verify/gpu/half_convert.hpp"

namespace ako::verify {

namespace {

std::vector<unsigned char> download_raw(CUdeviceptr p, uint64_t bytes, CUstream stream) {
  std::vector<unsigned char> raw(bytes);
  if (bytes == 0) return raw;
  cuda::check(cuMemcpyDtoHAsync(raw.data(), p, raw.size(), stream), "cuMemcpyDtoHAsync(to host)");
  cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(to host)");
  return raw;
}

template <class V>
V element(const std::vector<unsigned char>& raw, uint64_t i) {
  V v;
  std::memcpy(&v, raw.data() + sizeof(V) * i, sizeof(V));
  return v;
}

}  // namespace

std::vector<double> download_as_double(CUdeviceptr p, DType t, uint64_t n, CUstream stream) {
  const std::vector<unsigned char> raw = download_raw(p, n * dtype_size(t), stream);
  std::vector<double> out(n);
  for (uint64_t i = 0; i < n; ++i) {
    switch (t) {
      case DType::fp32: out[i] = element<float>(raw, i); break;
      case DType::bf16: out[i] = bf16_to_float(element<uint16_t>(raw, i)); break;
      case DType::fp16: out[i] = fp16_to_float(element<uint16_t>(raw, i)); break;
      case DType::i32: out[i] = element<int32_t>(raw, i); break;
      case DType::i64: out[i] = static_cast<double>(element<int64_t>(raw, i)); break;
    }
  }
  return out;
}

std::vector<double> download_doubles(CUdeviceptr p, uint64_t n, CUstream stream) {
  const std::vector<unsigned char> raw = download_raw(p, n * sizeof(double), stream);
  std::vector<double> out(n);
  if (n) std::memcpy(out.data(), raw.data(), raw.size());
  return out;
}

std::vector<int64_t> download_integers(CUdeviceptr p, DType t, uint64_t n, CUstream stream) {
  if (!dtype_is_integer(t)) throw Error("download_integers of a floating buffer");
  const std::vector<unsigned char> raw = download_raw(p, n * dtype_size(t), stream);
  std::vector<int64_t> out(n);
  for (uint64_t i = 0; i < n; ++i) out[i] = t == DType::i32 ? element<int32_t>(raw, i) : element<int64_t>(raw, i);
  return out;
}

void upload(CUdeviceptr p, const void* data, uint64_t bytes, CUstream stream) {
  if (bytes == 0) return;
  cuda::check(cuMemcpyHtoDAsync(p, data, bytes, stream), "cuMemcpyHtoDAsync(to device)");
  cuda::check(cuStreamSynchronize(stream), "cuStreamSynchronize(to device)");
}

}  // namespace ako::verify
