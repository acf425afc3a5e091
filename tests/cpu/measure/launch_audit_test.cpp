// CUPTI launch enforcement on recorded activity: a sample must hold exactly the declared launch
// (count, grid, block) and no memcpy or memset (measure/stats/launch_audit.hpp).
#include <gtest/gtest.h>

#include "measure/stats/launch_audit.hpp"

namespace ako::measure {
namespace {

ActivityRecord kernel(std::array<int, 3> grid, std::array<int, 3> block, const char* name = "rmsnorm_kernel") {
  ActivityRecord r;
  r.kind = ActivityRecord::Kind::kernel;
  r.start_ns = 100;
  r.end_ns = 200;
  r.grid = grid;
  r.block = block;
  r.name = name;
  return r;
}

ActivityRecord op(ActivityRecord::Kind kind, uint64_t bytes) {
  ActivityRecord r;
  r.kind = kind;
  r.bytes = bytes;
  return r;
}

const DeclaredLaunch kDeclared{{256, 1, 1}, {256, 1, 1}, 1};

TEST(LaunchAudit, TheDeclaredLaunchIsClean) {
  EXPECT_EQ(audit_sample({kernel({256, 1, 1}, {256, 1, 1})}, kDeclared), "");
  LaunchAudit a;
  for (int i = 0; i < 5; ++i) a.add({kernel({256, 1, 1}, {256, 1, 1})}, kDeclared);
  EXPECT_TRUE(a.clean());
  EXPECT_EQ(a.summary(), "");
}

TEST(LaunchAudit, ExtraKernelIsReported) {
  EXPECT_EQ(audit_sample({kernel({256, 1, 1}, {256, 1, 1}), kernel({1, 1, 1}, {32, 1, 1}, "helper")}, kDeclared),
            "2 kernels where 1 is declared; kernel 'helper' ran with grid (1,1,1) block (32,1,1), "
            "declared grid (256,1,1) block (256,1,1)");
}

TEST(LaunchAudit, MissingKernelAndWrongGeometry) {
  EXPECT_EQ(audit_sample({}, kDeclared), "0 kernels where 1 is declared");
  EXPECT_EQ(audit_sample({kernel({128, 1, 1}, {256, 1, 1})}, kDeclared),
            "kernel 'rmsnorm_kernel' ran with grid (128,1,1) block (256,1,1), declared grid (256,1,1) block (256,1,1)");
  EXPECT_NE(audit_sample({kernel({256, 1, 1}, {256, 2, 1})}, kDeclared), "");
}

TEST(LaunchAudit, MemcpyAndMemsetInsideTheWindow) {
  const auto r = audit_sample({kernel({256, 1, 1}, {256, 1, 1}), op(ActivityRecord::Kind::memcpy, 4096),
                               op(ActivityRecord::Kind::memset, 100), op(ActivityRecord::Kind::memset, 28)},
                              kDeclared);
  EXPECT_EQ(r, "1 memcpy (4096 bytes) inside the timed region; 2 memset (128 bytes) inside the timed region");
}

TEST(LaunchAudit, SummaryCountsBadSamplesAndKeepsTheFirstProblem) {
  LaunchAudit a;
  a.add({kernel({256, 1, 1}, {256, 1, 1})}, kDeclared);
  a.add({kernel({256, 1, 1}, {256, 1, 1}), op(ActivityRecord::Kind::memset, 8)}, kDeclared);
  a.add({}, kDeclared);
  EXPECT_FALSE(a.clean());
  EXPECT_EQ(a.summary(),
            "in 2 of 3 timed samples: 1 memset (8 bytes) inside the timed region (all of it charged to the solution)");
}

TEST(LaunchAudit, SeveralDeclaredLaunches) {
  const DeclaredLaunch two{{256, 1, 1}, {256, 1, 1}, 2};
  EXPECT_EQ(audit_sample({kernel({256, 1, 1}, {256, 1, 1}), kernel({256, 1, 1}, {256, 1, 1})}, two), "");
  EXPECT_EQ(audit_sample({kernel({256, 1, 1}, {256, 1, 1})}, two), "1 kernel where 2 are declared");
}

}  // namespace
}  // namespace ako::measure
