#pragma once
// Element types of task buffers. One place maps names, sizes and CUDA type spellings.
// Floating types are what a case runs in (its dtype) and what outputs are compared with a
// tolerance; integer types hold indices (RoPE positions) and are compared exactly.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ako {

enum class DType { bf16, fp16, fp32, i32, i64 };

inline std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::bf16: return "bf16";
    case DType::fp16: return "fp16";
    case DType::fp32: return "fp32";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
  }
  return "?";
}

// The spelling NVRTC sees in a template argument.
inline std::string_view dtype_cuda_type(DType t) {
  switch (t) {
    case DType::bf16: return "__nv_bfloat16";
    case DType::fp16: return "__half";
    case DType::fp32: return "float";
    case DType::i32: return "int";
    case DType::i64: return "long long";
  }
  return "?";
}

inline std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::bf16:
    case DType::fp16: return 2;
    case DType::fp32:
    case DType::i32: return 4;
    case DType::i64: return 8;
  }
  return 0;
}

inline bool dtype_is_integer(DType t) { return t == DType::i32 || t == DType::i64; }

inline std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "bf16" || s == "bfloat16") return DType::bf16;
  if (s == "fp16" || s == "float16" || s == "half") return DType::fp16;
  if (s == "fp32" || s == "float32" || s == "float") return DType::fp32;
  if (s == "i32" || s == "int32") return DType::i32;
  if (s == "i64" || s == "int64") return DType::i64;
  return std::nullopt;
}

}  // namespace ako
