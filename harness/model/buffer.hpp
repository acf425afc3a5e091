#pragma once
// The task vocabulary of buffers (tasks/README.md, "Buffers"): what a kernel reads and writes,
// evaluated for one case. task/ parses a spec into these, exec/protocol carries them to the
// worker, the worker allocates, fills, compares and restores them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/dtype.hpp"

namespace ako::model {

// in: read only (any change is a write out of bounds); out: written, compared, poisoned before
// every launch; inout: read and written in place (fresh contents per trial, the reference and
// the candidate each start from a copy of the same contents, restored before every timed launch).
enum class Role { in, out, inout };

inline const char* role_name(Role r) { return r == Role::in ? "in" : r == Role::out ? "out" : "inout"; }
inline bool role_writes(Role r) { return r != Role::in; }
inline bool role_reads(Role r) { return r != Role::out; }

// How fresh contents are generated on the GPU (seeded per trial).
//   normal:  a = mean, b = standard deviation        (floating types)
//   uniform: [a, b)                                   (floating types)
//   range:   integers uniform in [low, high)          (integer types; bounds evaluated per case)
struct Init {
  std::string dist = "normal";
  double a = 0.0, b = 1.0;
  int64_t low = 0, high = 0;
};

struct Tolerance {
  double atol = 1e-2;
  double rtol = 1e-2;
};

// How much less precise than the reference the candidate may be, judged against the task's
// fp64 oracle on the full shape (tasks/README.md, "Precision against the oracle"): its RMS and
// max abs error may be at most these multiples of the reference's (floored).
struct ErrorFactor {
  double rms = 1.25;
  double max = 3;
};

// A buffer that is a window into another buffer's allocation (q and k inside the packed qkv):
// element (i0, ..., in) is at of_storage[offset + sum(ik * strides[k])]. Strides in elements;
// 0 broadcasts a dimension (read-only views).
struct View {
  int of = -1;                      // index of the storage buffer in the case's buffers
  int64_t offset = 0;
  std::vector<int64_t> extents;
  std::vector<int64_t> strides;
};

// One buffer of one case, every expression evaluated.
struct Buffer {
  std::string name;
  Role role = Role::in;
  DType dtype = DType::bf16;
  uint64_t count = 0;               // elements: allocated (storage), or spanned by the view's extents
  std::vector<int64_t> extents;     // the shape, evaluated (extents of 1 broadcast)
  bool present = true;              // absent optional buffers are passed as nullptr
  Init init;
  Tolerance tolerance;              // out / inout of a floating type; integers compare exactly
  ErrorFactor error_factor;         // out / inout of a floating type: the precision check's factors
  std::optional<View> view;         // set: not allocated, a window into buffers[view->of]
};

// Elements a view can touch that are distinct (a 0 stride reads one element for the whole
// extent): what the roofline counts for it.
inline uint64_t distinct_elements(const View& v) {
  uint64_t n = 1;
  for (size_t k = 0; k < v.extents.size(); ++k)
    if (v.strides[k] != 0) n *= static_cast<uint64_t>(v.extents[k]);
  return n;
}

}  // namespace ako::model
