#pragma once
// Stand-in for SGLang's <sgl_kernel/tensor.h>, written for ako's port tests: SymbolicSize,
// SymbolicDevice and TensorMatcher with the calls the generated host glue makes. A matcher
// binds each symbolic size on first use and compares it after; an integer extent or stride is
// compared, -1 matches anything; without with_strides the tensor must be contiguous.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include <sgl_kernel/utils.h>
#include <tvm/ffi/container/tensor.h>

namespace host {

struct SymbolicSize {
  SymbolicSize(const char* name = "") : name_(name) {}
  SymbolicSize(const SymbolicSize&) = delete;
  SymbolicSize& operator=(const SymbolicSize&) = delete;
  int64_t unwrap() const {
    RuntimeCheck(bound_, "size ", name_, " is not bound");
    return value_;
  }
  void verify(int64_t v, const std::string& where) {
    if (!bound_) {
      value_ = v;
      bound_ = true;
      return;
    }
    RuntimeCheck(value_ == v, where, ": ", name_, " is ", value_, ", got ", v);
  }
  void set_value(int64_t v) {  // as the real one: once
    RuntimeCheck(!bound_, "size ", name_, " already set");
    value_ = v;
    bound_ = true;
  }

 private:
  std::string name_;
  int64_t value_ = 0;
  bool bound_ = false;
};

struct SymbolicDevice {
  template <DLDeviceType... Types>
  void set_options() {}
  DLDevice unwrap() const {
    RuntimeCheck(bound_, "device is not bound");
    return value_;
  }
  void verify(DLDevice d) {
    if (!bound_) {
      value_ = d;
      bound_ = true;
      return;
    }
    RuntimeCheck(value_.device_type == d.device_type && value_.device_id == d.device_id, "tensors on different devices");
  }

 private:
  DLDevice value_{kDLCPU, 0};
  bool bound_ = false;
};

namespace details {

struct SizeRef {
  SizeRef(SymbolicSize& s) : symbol(&s) {}  // NOLINT: as the real one, implicit
  SizeRef(int64_t v) : value(v) {}         // NOLINT: -1 matches anything
  void verify(int64_t got, const std::string& where) const {
    if (symbol) symbol->verify(got, where);
    else RuntimeCheck(value == -1 || value == got, where, ": expected ", value, ", got ", got);
  }
  SymbolicSize* symbol = nullptr;
  int64_t value = -1;
};

template <typename T>
struct dtype_of;
template <> struct dtype_of<__nv_bfloat16> { static constexpr DLDataType value{kDLBfloat, 16, 1}; };
template <> struct dtype_of<__half> { static constexpr DLDataType value{kDLFloat, 16, 1}; };
template <> struct dtype_of<float> { static constexpr DLDataType value{kDLFloat, 32, 1}; };
template <> struct dtype_of<int> { static constexpr DLDataType value{kDLInt, 32, 1}; };
template <> struct dtype_of<long long> { static constexpr DLDataType value{kDLInt, 64, 1}; };
template <> struct dtype_of<long> { static constexpr DLDataType value{kDLInt, 64, 1}; };

}  // namespace details

struct TensorMatcher {
  explicit TensorMatcher(std::initializer_list<details::SizeRef> shape) : shape_(shape) {}
  TensorMatcher&& with_strides(std::initializer_list<details::SizeRef> strides) && {
    strides_ = strides;
    has_strides_ = true;
    return std::move(*this);
  }
  template <typename... Ts>
  TensorMatcher&& with_dtype() && {
    dtypes_ = {details::dtype_of<Ts>::value...};
    return std::move(*this);
  }
  TensorMatcher&& with_device(SymbolicDevice& device) && {
    device_ = &device;
    return std::move(*this);
  }
  const TensorMatcher&& verify(const tvm::ffi::TensorView& t) const&& {
    RuntimeCheck(t.dim() == static_cast<int32_t>(shape_.size()), "rank: expected ", shape_.size(), ", got ", t.dim());
    for (size_t i = 0; i < shape_.size(); ++i) shape_[i].verify(t.size(i), "extent " + std::to_string(i));
    if (has_strides_)
      for (size_t i = 0; i < strides_.size(); ++i) strides_[i].verify(t.stride(i), "stride " + std::to_string(i));
    else
      RuntimeCheck(t.is_contiguous(), "not contiguous");
    bool dtype_ok = dtypes_.empty();
    for (const auto& d : dtypes_) dtype_ok = dtype_ok || d == t.dtype();
    RuntimeCheck(dtype_ok, "dtype mismatch");
    if (device_) device_->verify(t.device());
    return std::move(*this);
  }

 private:
  std::vector<details::SizeRef> shape_, strides_;
  std::vector<DLDataType> dtypes_;
  SymbolicDevice* device_ = nullptr;
  bool has_strides_ = false;
};

}  // namespace host
