#pragma once
// Element types a task can run in. One place maps names, sizes and CUDA type spellings.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ako {

enum class DType { bf16, fp16, fp32 };

inline std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::bf16: return "bf16";
    case DType::fp16: return "fp16";
    case DType::fp32: return "fp32";
  }
  return "?";
}

// The spelling NVRTC sees in a template argument.
inline std::string_view dtype_cuda_type(DType t) {
  switch (t) {
    case DType::bf16: return "__nv_bfloat16";
    case DType::fp16: return "__half";
    case DType::fp32: return "float";
  }
  return "?";
}

inline std::size_t dtype_size(DType t) { return t == DType::fp32 ? 4 : 2; }

inline std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "bf16" || s == "bfloat16") return DType::bf16;
  if (s == "fp16" || s == "float16" || s == "half") return DType::fp16;
  if (s == "fp32" || s == "float32" || s == "float") return DType::fp32;
  return std::nullopt;
}

}  // namespace ako
