// The precision check's rule (verify/gpu/precision_rule.cpp, compiled in from the worker's
// sources): the yardstick, the floors, the factors, the reason; and, on emulated RMSNorm rows in
// bf16 and fp16, that the default factors refuse a sum of squares accumulated in the output
// dtype on every seed and pass an fp32 sum in another order on every seed.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "task/spec.hpp"
#include "verify/gpu/precision_rule.hpp"

namespace ako::verify {
namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// What ako_oracle_error counts for `got` against `oracle` (compare_stats.h, AkoOracleStats).
OracleError stats_of(const std::vector<double>& got, const std::vector<double>& oracle) {
  OracleError e;
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(oracle[i])) {
      ++e.oracle_nonfinite;
    } else if (!std::isfinite(got[i])) {
      ++e.got_nonfinite;
    } else {
      const double d = std::abs(got[i] - oracle[i]);
      ++e.count;
      e.sum_sq_err += d * d;
      e.max_abs_err = std::max(e.max_abs_err, d);
      e.sum_sq_oracle += oracle[i] * oracle[i];
      e.max_abs_oracle = std::max(e.max_abs_oracle, std::abs(oracle[i]));
    }
  }
  return e;
}

OracleError errors(uint64_t count, double rms, double max, double oracle_rms, double oracle_max) {
  OracleError e;
  e.count = count;
  e.sum_sq_err = rms * rms * static_cast<double>(count);
  e.max_abs_err = max;
  e.sum_sq_oracle = oracle_rms * oracle_rms * static_cast<double>(count);
  e.max_abs_oracle = oracle_max;
  return e;
}

const model::ErrorFactor kFactor{1.25, 3};

TEST(PrecisionRule, UnitRoundoffPerDtype) {
  EXPECT_DOUBLE_EQ(unit_roundoff(DType::bf16), 1.0 / 256);
  EXPECT_DOUBLE_EQ(unit_roundoff(DType::fp16), 1.0 / 2048);
  EXPECT_DOUBLE_EQ(unit_roundoff(DType::fp32), std::ldexp(1.0, -24));
  EXPECT_DOUBLE_EQ(unit_roundoff(DType::i32), 0.0);
}

TEST(PrecisionRule, TheReferencesOwnErrorIsTheYardstick) {
  const OracleError ref = errors(1000, 2e-3, 1.5e-2, 1.0, 4.0);
  const PrecisionVerdict same = judge_precision(ref, ref, DType::bf16, kFactor, "out", 1);
  EXPECT_TRUE(same.pass);
  EXPECT_DOUBLE_EQ(same.report.rms_ratio, 1.0);
  EXPECT_DOUBLE_EQ(same.report.max_ratio, 1.0);
  EXPECT_DOUBLE_EQ(same.report.reference_rms, 2e-3);
  EXPECT_DOUBLE_EQ(same.report.floor_rms, 1.0 / 256 / 4);
  EXPECT_DOUBLE_EQ(same.report.floor_max, 4.0 / 256 / 4);
  EXPECT_DOUBLE_EQ(limit_fraction(same.report), 1.0 / 1.25);

  // At the factor passes, just past it fails; each measure on its own.
  EXPECT_TRUE(judge_precision(errors(1000, 2.5e-3, 1.5e-2, 1, 4), ref, DType::bf16, kFactor, "out", 1).pass);
  EXPECT_FALSE(judge_precision(errors(1000, 2.51e-3, 1.5e-2, 1, 4), ref, DType::bf16, kFactor, "out", 1).pass);
  EXPECT_TRUE(judge_precision(errors(1000, 2e-3, 4.5e-2, 1, 4), ref, DType::bf16, kFactor, "out", 1).pass);
  const PrecisionVerdict max_only = judge_precision(errors(1000, 2e-3, 4.6e-2, 1, 4), ref, DType::bf16, kFactor, "out", 1);
  EXPECT_FALSE(max_only.pass);
  EXPECT_GT(limit_fraction(max_only.report), 1.0);
  // A better solution than the reference is never refused.
  EXPECT_TRUE(judge_precision(errors(1000, 1e-3, 1e-3, 1, 4), ref, DType::bf16, kFactor, "out", 1).pass);
}

TEST(PrecisionRule, TheFloorWhereTheReferenceIsExact) {
  // The reference matches the oracle exactly: the yardstick is u/4 of the oracle's magnitude,
  // not zero, so an ulp-level difference of an honest kernel is judged against something.
  const OracleError exact = errors(1000, 0, 0, 2.0, 8.0);
  const double floor_rms = 2.0 / 2048 / 4, floor_max = 8.0 / 2048 / 4;
  const PrecisionVerdict near = judge_precision(errors(1000, floor_rms, floor_max, 2, 8), exact, DType::fp16, kFactor, "y", 2);
  EXPECT_TRUE(near.pass);
  EXPECT_DOUBLE_EQ(near.report.rms_ratio, 1.0);
  EXPECT_DOUBLE_EQ(near.report.floor_rms, floor_rms);
  const PrecisionVerdict far = judge_precision(errors(1000, 2 * floor_rms, floor_max, 2, 8), exact, DType::fp16, kFactor, "y", 2);
  EXPECT_FALSE(far.pass);
  const std::string r = precision_reason(far.report, 3);
  EXPECT_TRUE(has(r, "RMS 0.000488281 = 2x the floor 0.000244141 (u/4 x RMS |oracle|; the reference kernel's is 0) "
                     "(at most 1.25x allowed)"))
      << r;
  // A zero oracle and an exact reference: a zero error passes, any other cannot.
  const OracleError zero = errors(10, 0, 0, 0, 0);
  EXPECT_TRUE(judge_precision(zero, zero, DType::bf16, kFactor, "y", 1).pass);
  const PrecisionVerdict off = judge_precision(errors(10, 1e-9, 1e-9, 0, 0), zero, DType::bf16, kFactor, "y", 1);
  EXPECT_FALSE(off.pass);
  EXPECT_TRUE(std::isinf(off.report.rms_ratio));
}

TEST(PrecisionRule, ReasonNamesTheBufferTrialBothErrorsAndTheFactors) {
  const OracleError ref = errors(1000, 2e-3, 1.5e-2, 1, 4);
  const PrecisionVerdict v = judge_precision(errors(1000, 1e-2, 6e-2, 1, 4), ref, DType::bf16, kFactor, "out", 2);
  ASSERT_FALSE(v.pass);
  EXPECT_EQ(precision_reason(v.report, 3),
            "less precise than the reference: in 'out' (validation trial 2/3) the solution's error against the fp64 "
            "oracle is RMS 0.01 = 5x the reference kernel's 0.002 (at most 1.25x allowed) and max abs 0.06 = 4x the "
            "reference kernel's 0.015 (at most 3x allowed)");
}

TEST(PrecisionRule, NonFiniteValues) {
  const OracleError ref = errors(1000, 2e-3, 1.5e-2, 1, 4);
  OracleError nan = errors(999, 2e-3, 1.5e-2, 1, 4);
  nan.got_nonfinite = 1;
  const PrecisionVerdict v = judge_precision(nan, ref, DType::bf16, kFactor, "out", 1);
  EXPECT_FALSE(v.pass);
  EXPECT_TRUE(has(precision_reason(v.report, 3, nan.got_nonfinite), "is unbounded: 1 NaN/Inf value(s) where the oracle is finite"));
  EXPECT_EQ(oracle_nonfinite_reason("out", 5, 100, 1, 3),
            "fp64 oracle produced 5 non-finite value(s) of 100 in 'out' on this shape (validation trial 1/3): the fp64 "
            "oracle (or its inputs) is broken, not the solution; the precision check cannot judge it");
}

// ---- Emulated RMSNorm rows: y = T(x * rsqrt(mean(x^2) + eps) * w), x ~ N(0, 1), w ~ N(1, 0.25).

float round_to(DType t, float f) {
  if (t == DType::fp16) return static_cast<float>(static_cast<_Float16>(f));
  uint32_t u;   // bf16: round to nearest even on the top 16 bits
  std::memcpy(&u, &f, 4);
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  std::memcpy(&f, &u, 4);
  return f;
}

enum class Sum { reference, reordered, in_output_dtype };

// One row's sum of squares as 256 threads add it (strided), then across the threads: the
// reference (fp32, tree), an fp32 sum in another order (contiguous chunks, threads in reverse),
// or the downgrade (each thread's share and the total kept in the output dtype).
float sum_of_squares(const std::vector<float>& x, Sum how, DType t) {
  const int n = static_cast<int>(x.size()), threads = 256;
  std::vector<float> share(threads, 0.f);
  for (int th = 0; th < threads; ++th) {
    if (how == Sum::reordered) {
      const int per = (n + threads - 1) / threads;
      for (int c = th * per; c < std::min(n, (th + 1) * per); ++c) share[th] = std::fma(x[c], x[c], share[th]);
    } else {
      for (int c = th; c < n; c += threads) {
        share[th] = std::fma(x[c], x[c], share[th]);
        if (how == Sum::in_output_dtype) share[th] = round_to(t, share[th]);
      }
    }
  }
  if (how == Sum::reference) {
    for (int stride = threads / 2; stride > 0; stride /= 2)
      for (int i = 0; i < stride; ++i) share[i] += share[i + stride];
    return share[0];
  }
  float total = 0;
  for (int th = threads - 1; th >= 0; --th) total = how == Sum::in_output_dtype ? round_to(t, total + share[th]) : total + share[th];
  return total;
}

struct Rows {
  std::vector<double> oracle, reference, reordered, downgrade;
};

Rows rmsnorm_rows(DType t, int rows, int cols, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<float> nx(0, 1), nw(1, 0.25f);
  std::vector<float> w(cols), x(cols);
  for (float& v : w) v = round_to(t, nw(g));
  Rows out;
  for (int r = 0; r < rows; ++r) {
    double exact = 0;
    for (float& v : x) {
      v = round_to(t, nx(g));
      exact += static_cast<double>(v) * v;
    }
    const double inv = 1.0 / std::sqrt(exact / cols + static_cast<double>(1e-6f));
    for (int c = 0; c < cols; ++c) out.oracle.push_back(x[c] * inv * w[c]);
    for (auto [how, into] : {std::pair{Sum::reference, &out.reference}, {Sum::reordered, &out.reordered},
                             {Sum::in_output_dtype, &out.downgrade}}) {
      const float inv_rms = 1.0f / std::sqrt(sum_of_squares(x, how, t) / static_cast<float>(cols) + 1e-6f);
      for (int c = 0; c < cols; ++c) into->push_back(round_to(t, x[c] * inv_rms * w[c]));
    }
  }
  return out;
}

TEST(PrecisionRule, DefaultFactorsRefuseADowngradedSumOnEverySeedAndPassAReorderedOne) {
  for (DType t : {DType::bf16, DType::fp16})
    for (int cols : {128, 3072})
      for (uint64_t seed = 1; seed <= 20; ++seed) {
        const Rows r = rmsnorm_rows(t, cols == 128 ? 256 : 32, cols, seed * 7919 + cols);
        const OracleError ref = stats_of(r.reference, r.oracle);
        const model::ErrorFactor f = task::default_error_factor(t);
        const PrecisionVerdict honest = judge_precision(stats_of(r.reordered, r.oracle), ref, t, f, "out", 1);
        const PrecisionVerdict downgrade = judge_precision(stats_of(r.downgrade, r.oracle), ref, t, f, "out", 1);
        const std::string label = std::string(dtype_name(t)) + " cols " + std::to_string(cols) + " seed " + std::to_string(seed);
        EXPECT_TRUE(honest.pass) << label << ": " << precision_reason(honest.report, 1);
        EXPECT_LT(honest.report.rms_ratio, 1.05) << label;
        EXPECT_FALSE(downgrade.pass) << label << ": rms ratio " << downgrade.report.rms_ratio;
      }
}

}  // namespace
}  // namespace ako::verify
