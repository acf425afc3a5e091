// The precision check's factors in the task format (tasks/README.md, "Precision against the
// oracle"): the per-dtype defaults, the task's own entries, a buffer's override, and every
// compare case carrying the fp64 oracle the check runs.
#include <gtest/gtest.h>

#include "task/cases.hpp"
#include "task/spec.hpp"
#include "task_fixture.hpp"

namespace ako::task {
namespace {

using nlohmann::json;
using testing::ScratchRoot;

const model::Buffer& out_buffer(const Case& c) { return c.buffers.at(2); }

TEST(ErrorFactor, DefaultsPerDtype) {
  EXPECT_DOUBLE_EQ(default_error_factor(DType::bf16).rms, 1.25);
  EXPECT_DOUBLE_EQ(default_error_factor(DType::bf16).max, 3);
  EXPECT_DOUBLE_EQ(default_error_factor(DType::fp16).rms, 1.25);
  EXPECT_DOUBLE_EQ(default_error_factor(DType::fp16).max, 3);
  EXPECT_DOUBLE_EQ(default_error_factor(DType::fp32).rms, 16);
  EXPECT_DOUBLE_EQ(default_error_factor(DType::fp32).max, 32);
}

TEST(ErrorFactor, AbsentMeansTheDefaultsForEveryDtypeOfTheTask) {
  ScratchRoot root;
  json doc = testing::real_task_doc();
  doc.erase("error_factor");
  const TaskSpec spec = root.parse(doc);
  ASSERT_EQ(spec.error_factor.size(), 2u);
  EXPECT_DOUBLE_EQ(spec.error_factor.at(DType::fp16).rms, 1.25);
  const auto cases = expand_cases(spec, {{"text-512"}, {DType::bf16}}, {}, false);
  ASSERT_FALSE(cases.empty());
  EXPECT_DOUBLE_EQ(out_buffer(cases[0]).error_factor.rms, 1.25);
  EXPECT_DOUBLE_EQ(out_buffer(cases[0]).error_factor.max, 3);
}

TEST(ErrorFactor, TaskEntryThenBufferOverride) {
  ScratchRoot root;
  json doc = testing::real_task_doc();
  doc["error_factor"] = {{"bf16", {{"rms", 2}}}};   // max left out: the default
  doc["buffers"][2]["error_factor"] = {{"fp16", {{"rms", 4}, {"max", 8}}}};
  const TaskSpec spec = root.parse(doc);
  EXPECT_DOUBLE_EQ(spec.error_factor.at(DType::bf16).rms, 2);
  EXPECT_DOUBLE_EQ(spec.error_factor.at(DType::bf16).max, 3);
  const auto cases = expand_cases(spec, {{"text-512"}, {}}, {}, false);
  const Case& bf16 = testing::find_case(cases, "text-512 bf16 weight");
  const Case& fp16 = testing::find_case(cases, "text-512 fp16 weight");
  EXPECT_DOUBLE_EQ(out_buffer(bf16).error_factor.rms, 2);    // the task's entry
  EXPECT_DOUBLE_EQ(out_buffer(bf16).error_factor.max, 3);
  EXPECT_DOUBLE_EQ(out_buffer(fp16).error_factor.rms, 4);    // the buffer's own
  EXPECT_DOUBLE_EQ(out_buffer(fp16).error_factor.max, 8);
}

TEST(ErrorFactor, EveryCompareCaseCarriesTheOracle) {
  ScratchRoot root;
  const TaskSpec spec = root.parse(testing::real_task_doc());
  for (const Case& c : expand_cases(spec, {{"qknorm-flux"}, {}}, {}, true)) {
    ASSERT_TRUE(c.oracle) << c.label();
    EXPECT_EQ(c.oracle->name_expression, c.flags.at("weight") ? "rmsnorm_oracle<true>" : "rmsnorm_oracle<false>");
    if (c.kind == "compare") {
      EXPECT_EQ(c.oracle->grid[0], 110592u / 4) << c.label();   // one warp per row, four per block
    }
  }
}

}  // namespace
}  // namespace ako::task
