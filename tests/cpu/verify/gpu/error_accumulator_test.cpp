// Verdict reasons of the worker's comparisons (verify/gpu/error_accumulator.cpp) and the host
// comparison of the reference check (verify/gpu/host_compare.cpp): per-buffer tolerances, the
// failing buffer named, integers compared exactly. Both are pure and compiled in from the
// worker's sources (tests/CMakeLists.txt).
#include <gtest/gtest.h>

#include <cmath>

#include "verify/gpu/buffer_comparison.hpp"
#include "verify/gpu/host_compare.hpp"

namespace ako::verify {
namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

BufferComparison mismatching(uint64_t mismatches, uint64_t checked, int64_t index, double got, double want) {
  BufferComparison c;
  c.checked = checked;
  c.mismatches = mismatches;
  c.worst_index = index;
  c.worst_got = got;
  c.worst_want = want;
  c.max_abs = std::abs(got - want);
  c.got_varying = c.want_varying = checked - 1;
  return c;
}

TEST(ErrorAccumulator, NamesTheFailingBufferWithItsOwnTolerance) {
  ErrorAccumulator acc;
  // A large error within q's loose tolerance, a small one beyond k's tight one.
  acc.add(mismatching(0, 100, 3, 1.5, 1.0), "q", exec::Tolerance{1.0, 0});
  acc.add(mismatching(4, 100, 7, 1.01, 1.0), "k", exec::Tolerance{1e-3, 1e-3});
  const std::string r = acc.failure_reason("solution", "reference kernel");
  EXPECT_TRUE(has(r, "solution differs from reference kernel in 'k': 4 of 100 elements mismatch (tolerance atol 0.001 "
                     "+ rtol 0.001 * |want|)"))
      << r;
  EXPECT_TRUE(has(r, "worst at index 7: got 1.01, want 1")) << r;
  EXPECT_FALSE(has(r, "'q'")) << r;
  // The run's statistics still point at the largest error of all.
  EXPECT_EQ(acc.stats().buffer, "q");
  EXPECT_EQ(acc.stats().mismatches, 4u);
  EXPECT_EQ(acc.stats().checked, 200u);
}

TEST(ErrorAccumulator, ListsEveryFailingBufferAndSaysWhenComparedExactly) {
  ErrorAccumulator acc;
  acc.add(mismatching(2, 10, 1, 5, 6), "positions", exec::Tolerance{0, 0}, true);
  acc.add(mismatching(1, 10, 0, 1, 2), "out", exec::Tolerance{1e-2, 1e-2});
  acc.add(mismatching(3, 10, 4, 1, 9), "out", exec::Tolerance{1e-2, 1e-2});   // a later trial
  const std::string r = acc.failure_reason("solution", "reference kernel");
  EXPECT_TRUE(has(r, "in 'positions': 2 of 10 elements mismatch (compared exactly)")) << r;
  EXPECT_TRUE(has(r, "; also in 'out' (4 of 20 elements)")) << r;
}

TEST(ErrorAccumulator, NoReasonWhenEverythingMatched) {
  ErrorAccumulator acc;
  acc.add(mismatching(0, 10, 2, 1.0, 1.0), "out", exec::Tolerance{});
  EXPECT_EQ(acc.failure_reason("solution", "reference kernel"), "");
}

TEST(HostCompare, FloatingValuesWithinTheTolerance) {
  const BufferComparison c = compare_on_host({1.0, 2.0, 3.5, NAN}, {1.0, 2.01, 3.0, 4.0}, exec::Tolerance{0.02, 0});
  EXPECT_EQ(c.checked, 4u);
  EXPECT_EQ(c.mismatches, 2u);   // 3.5 vs 3 and the NaN
  EXPECT_EQ(c.nonfinite, 1u);
  EXPECT_EQ(c.worst_index, 3);   // a non-finite pair ranks first
  EXPECT_DOUBLE_EQ(c.max_abs, 0.5);
}

TEST(HostCompare, IntegersExactly) {
  const int64_t big = (1ll << 60);
  const BufferComparison c = compare_exactly_on_host({0, 5, big + 1, 7}, {0, 5, big, 9});
  EXPECT_EQ(c.checked, 4u);
  EXPECT_EQ(c.mismatches, 2u);   // big + 1 vs big differs, however close as doubles
  EXPECT_EQ(c.worst_index, 3);
  EXPECT_DOUBLE_EQ(c.worst_got, 7);
  EXPECT_DOUBLE_EQ(c.worst_want, 9);
  EXPECT_EQ(compare_exactly_on_host({1, 2}, {1, 2}).mismatches, 0u);
}

}  // namespace
}  // namespace ako::verify
