#include "exec/protocol/verdict_reasons.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace ako::exec {

std::string reason_number(double v) {
  char s[64];
  std::snprintf(s, sizeof s, "%.6g", v);
  return s;
}

bool is_constant_output(uint64_t checked, uint64_t got_varying, uint64_t want_varying) {
  return checked > 1 && got_varying == 0 && want_varying > 0;
}

std::string constant_output_reason(const std::string& buffer, uint64_t checked, double value) {
  return fmt::format("constant output: all {} elements of '{}' are {} while the reference's vary "
                     "(unwritten or skipped work)",
                     checked, buffer, reason_number(value));
}

std::string nondeterministic_reason(const std::string& buffer, uint64_t differing, uint64_t checked,
                                    int64_t index, double first, double second) {
  return fmt::format("nondeterministic: two runs of the solution on the same inputs differ in '{}' "
                     "({} of {} elements; worst at index {}: {} then {}): a race or a read of "
                     "uninitialised shared memory",
                     buffer, differing, checked, index, reason_number(first), reason_number(second));
}

namespace {
constexpr uint64_t kPlacementSets = 4;
constexpr uint64_t kPlacementBytes = 4ull << 30;
}  // namespace

int timed_input_sets(uint64_t set_bytes, uint64_t l2_bytes, uint64_t free_bytes, int max_sets) {
  if (set_bytes == 0) return 1;
  // Sets whose total exceeds the L2 by one set: the set a sample uses cannot still be cached.
  uint64_t wanted = l2_bytes / set_bytes + 2;
  // Each set is its own allocation, so its own placement in DRAM; with two sets the median of
  // their mixed samples can land in either set's mode (run to run 1-4% apart on the H200 for
  // 15-30 us kernels). Four placements smooth that, where they cost at most 4 GiB.
  if (set_bytes * kPlacementSets <= kPlacementBytes) wanted = std::max<uint64_t>(wanted, kPlacementSets);
  int sets = static_cast<int>(std::min<uint64_t>(wanted, static_cast<uint64_t>(std::max(2, max_sets))));
  sets = std::max(sets, 2);
  const uint64_t affordable = free_bytes / 2 / set_bytes;
  if (affordable < static_cast<uint64_t>(sets)) sets = static_cast<int>(std::max<uint64_t>(1, affordable));
  return sets;
}

}  // namespace ako::exec
