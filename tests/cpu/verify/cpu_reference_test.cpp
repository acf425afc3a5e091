// The CPU double-precision RMSNorm: the ground truth the GPU reference is checked against.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "common/error.hpp"
#include "verify/cpu/cpu_reference.hpp"

namespace ako::verify {
namespace {

CpuCase rmsnorm_case(int64_t rows, int64_t cols, std::vector<double> x, double eps,
                     std::optional<std::vector<double>> weight = std::nullopt) {
  CpuCase c;
  c.dims = {{"rows", rows}, {"cols", cols}};
  c.scalars = {{"eps", eps}};
  c.inputs["x"] = std::move(x);
  if (weight) c.inputs["weight"] = std::move(*weight);
  return c;
}

std::vector<double> run(const CpuCase& c) {
  std::map<std::string, std::vector<double>> outputs;
  find_cpu_reference("rmsnorm")(c, outputs);
  return outputs.at("out");
}

TEST(CpuReference, LookupByOpName) {
  EXPECT_EQ(find_cpu_reference("rmsnorm"), &rmsnorm_reference);
  EXPECT_EQ(find_cpu_reference("layernorm"), nullptr);
  EXPECT_EQ(find_cpu_reference(""), nullptr);
}

TEST(CpuReference, HandComputedRow) {
  // x = (3, 4): mean of squares 12.5, rms = sqrt(12.5 + eps); eps 0 keeps it hand-checkable.
  const auto y = run(rmsnorm_case(1, 2, {3, 4}, 0.0));
  ASSERT_EQ(y.size(), 2u);
  EXPECT_DOUBLE_EQ(y[0], 3 / std::sqrt(12.5));
  EXPECT_DOUBLE_EQ(y[1], 4 / std::sqrt(12.5));
  EXPECT_NEAR(y[0], 0.848528137423857, 1e-15);
}

TEST(CpuReference, ConstantRowNormalisesToOne) {
  // Each row constant c: y = c / sqrt(c^2 + eps) -> +-1 for eps << c^2; rows are independent.
  const auto y = run(rmsnorm_case(3, 4, {2, 2, 2, 2, -5, -5, -5, -5, 1e-3, 1e-3, 1e-3, 1e-3}, 1e-12));
  for (int j = 0; j < 4; ++j) {
    EXPECT_NEAR(y[j], 1.0, 1e-12);
    EXPECT_NEAR(y[4 + j], -1.0, 1e-12);
    EXPECT_NEAR(y[8 + j], 1.0, 1e-6);
  }
}

TEST(CpuReference, EpsDampsSmallRows) {
  // x = 1e-3 everywhere: mean square 1e-6. eps = 1e-6 doubles it: y = 1e-3 / sqrt(2e-6).
  const auto y = run(rmsnorm_case(1, 8, std::vector<double>(8, 1e-3), 1e-6));
  for (double v : y) EXPECT_NEAR(v, 1e-3 / std::sqrt(2e-6), 1e-15);
  const auto zero = run(rmsnorm_case(1, 8, std::vector<double>(8, 0.0), 1e-6));
  for (double v : zero) EXPECT_EQ(v, 0.0);  // no division by zero: eps keeps rms > 0
}

TEST(CpuReference, WeightScalesPerColumn) {
  const std::vector<double> x = {1, -2, 3, -4, 5, -6};
  const std::vector<double> w = {0.5, 2, -1};
  const auto plain = run(rmsnorm_case(2, 3, x, 1e-6));
  const auto weighted = run(rmsnorm_case(2, 3, x, 1e-6, w));
  for (int r = 0; r < 2; ++r)
    for (int j = 0; j < 3; ++j) EXPECT_DOUBLE_EQ(weighted[r * 3 + j], plain[r * 3 + j] * w[j]);
  // Row 0: mean square (1 + 4 + 9) / 3.
  EXPECT_NEAR(plain[1], -2 / std::sqrt(14.0 / 3 + 1e-6), 1e-15);
}

TEST(CpuReference, RejectsMalformedCases) {
  std::map<std::string, std::vector<double>> out;
  EXPECT_THROW(rmsnorm_reference(rmsnorm_case(2, 3, {1, 2, 3}, 1e-6), out), Error);           // x too short
  EXPECT_THROW(rmsnorm_reference(rmsnorm_case(1, 3, {1, 2, 3}, 1e-6, {{1, 2}}), out), Error);  // weight size
  CpuCase no_eps = rmsnorm_case(1, 1, {1}, 0);
  no_eps.scalars.clear();
  EXPECT_THROW(rmsnorm_reference(no_eps, out), Error);
}

}  // namespace
}  // namespace ako::verify
