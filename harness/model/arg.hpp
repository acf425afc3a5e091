#pragma once
// A kernel argument of one case, bound: a buffer (by index into the case's buffers), a null
// pointer (an absent optional buffer) or a scalar value.
#include <cstdint>

namespace ako::model {

struct Arg {
  enum class Kind { buffer, null, i32, i64, f32 };
  Kind kind = Kind::null;
  int buffer = -1;               // index into the case's buffers (kind == buffer)
  int64_t i = 0;                 // i32 / i64 value
  double f = 0.0;                // f32 value
};

}  // namespace ako::model
