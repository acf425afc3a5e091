#pragma once
// Stand-in for tvm-ffi's <tvm/ffi/container/tensor.h>, written for ako's port tests
// (tests/cpu/port/port_v2_test.cpp): DLPack's device and dtype structs and a TensorView with the
// accessors the generated host glue calls (data_ptr, dim, size, stride, dtype, device,
// is_contiguous), over a host-side description the test builds. Nothing reads the data.
#include <cstdint>
#include <utility>
#include <vector>

enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2 };
struct DLDevice {
  DLDeviceType device_type;
  int32_t device_id;
};

enum DLDataTypeCode : uint8_t { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLBfloat = 4 };
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
inline bool operator==(DLDataType a, DLDataType b) { return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes; }

namespace tvm::ffi {

class TensorView {
 public:
  TensorView(void* data, std::vector<int64_t> shape, std::vector<int64_t> strides, DLDataType dtype,
             DLDevice device = {kDLCUDA, 0})
      : data_(data), shape_(std::move(shape)), strides_(std::move(strides)), dtype_(dtype), device_(device) {}

  void* data_ptr() const { return data_; }
  DLDevice device() const { return device_; }
  DLDataType dtype() const { return dtype_; }
  int32_t dim() const { return static_cast<int32_t>(shape_.size()); }
  int64_t size(int64_t i) const { return shape_.at(static_cast<size_t>(i)); }
  int64_t stride(int64_t i) const { return strides_.at(static_cast<size_t>(i)); }
  // Row-major; dimensions of extent 1 may have any stride (as tvm-ffi and torch see it).
  bool is_contiguous() const {
    int64_t expected = 1;
    for (size_t k = shape_.size(); k-- > 0;) {
      if (shape_[k] == 1) continue;
      if (strides_[k] != expected) return false;
      expected *= shape_[k];
    }
    return true;
  }

 private:
  void* data_;
  std::vector<int64_t> shape_, strides_;
  DLDataType dtype_;
  DLDevice device_;
};

}  // namespace tvm::ffi
