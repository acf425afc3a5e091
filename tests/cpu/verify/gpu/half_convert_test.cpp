// Host bf16 / fp16 conversions: exhaustive where the domain is 16 bits, and on every
// rounding boundary plus many random floats where it is 32 bits. GCC's _Float16 (soft-fp,
// round to nearest even) is the fp16 oracle; bf16 has a separate exact-distance oracle.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "verify/gpu/half_convert.hpp"

namespace ako::verify {
namespace {

float from_bits(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
uint32_t to_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

uint16_t gcc_fp16_bits(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

bool fp16_is_nan(uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
bool bf16_is_nan(uint16_t h) { return (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) != 0; }

// bf16 by exact distances in double (float and bf16 values are exact in double):
// the nearer of the two neighbours, ties to the even one; beyond the largest finite bf16 by
// half an ulp or more, Inf (2^128 stands in for the next value up).
uint16_t careful_bf16(float f) {
  if (std::isnan(f)) return 0x7fff;
  const uint32_t u = to_bits(f);
  const uint16_t sign = static_cast<uint16_t>(u >> 16) & 0x8000u;
  const uint16_t lo = static_cast<uint16_t>((u & 0x7fffffffu) >> 16);  // truncated magnitude
  if ((u & 0xffffu) == 0) return static_cast<uint16_t>(sign | lo);      // exact (Inf included)
  const uint16_t hi = lo + 1;
  const double x = std::fabs(static_cast<double>(f));
  const double lo_v = static_cast<double>(from_bits(static_cast<uint32_t>(lo) << 16));
  const double hi_v = hi == 0x7f80u ? std::ldexp(1.0, 128) : static_cast<double>(from_bits(static_cast<uint32_t>(hi) << 16));
  const double d_lo = x - lo_v, d_hi = hi_v - x;
  const uint16_t mag = d_lo < d_hi ? lo : d_hi < d_lo ? hi : (lo & 1u) ? hi : lo;
  return static_cast<uint16_t>(sign | mag);
}

// Floats on and next to every rounding boundary of a 16-bit format whose value of pattern
// h is `value(h)`: each representable value, each midpoint to the next, and one float ulp
// either side of both.
template <typename ValueFn>
std::vector<float> boundary_floats(ValueFn value) {
  std::vector<float> out;
  for (uint32_t h = 0; h < 0x7c00u * 2; ++h) {  // enough positive patterns for both formats
    const float a = value(static_cast<uint16_t>(h)), b = value(static_cast<uint16_t>(h + 1));
    if (!std::isfinite(a) || !std::isfinite(b)) break;
    const float mid = static_cast<float>((static_cast<double>(a) + b) / 2);  // exact: 1 bit more
    for (float f : {a, mid}) {
      for (float g : {f, std::nextafter(f, 0.f), std::nextafter(f, INFINITY)}) {
        out.push_back(g);
        out.push_back(-g);
      }
    }
  }
  return out;
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    if (i % 2 == 0) {
      out.push_back(from_bits(rng()));  // any bit pattern: NaN, Inf, float subnormals, ...
    } else {  // magnitudes where fp16 and bf16 round: 2^-30 .. 2^20
      const uint32_t exp = 97 + rng() % 50;
      out.push_back(from_bits((rng() & 0x807fffffu) | (exp << 23)));
    }
  }
  return out;
}

TEST(HalfConvert, Fp16RoundTripsEveryPattern) {
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const float f = fp16_to_float(static_cast<uint16_t>(h));
    const uint16_t back = float_to_fp16(f);
    if (fp16_is_nan(static_cast<uint16_t>(h))) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      EXPECT_TRUE(fp16_is_nan(back)) << std::hex << h;
    } else {
      ASSERT_EQ(back, h) << std::hex << "pattern 0x" << h << " -> " << f;
    }
  }
}

TEST(HalfConvert, Fp16ToFloatMatchesGcc) {
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const uint16_t b = static_cast<uint16_t>(h);
    _Float16 g;
    std::memcpy(&g, &b, 2);
    const float want = static_cast<float>(g), got = fp16_to_float(b);
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(got)) << std::hex << h;
    } else {
      ASSERT_EQ(to_bits(got), to_bits(want)) << std::hex << "pattern 0x" << h;
    }
  }
}

TEST(HalfConvert, Fp16SpotValues) {
  EXPECT_EQ(float_to_fp16(1.0f), 0x3c00);
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bff);
  EXPECT_EQ(float_to_fp16(65519.996f), 0x7bff);                       // just below max + half ulp
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00);                         // tie rounds to even: Inf
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -24)), 0x0001);            // smallest subnormal
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -25)), 0x0000);            // tie between 0 and it: even
  EXPECT_EQ(float_to_fp16(std::nextafter(std::ldexp(1.0f, -25), 1.f)), 0x0001);
  EXPECT_EQ(float_to_fp16(std::ldexp(3.0f, -25)), 0x0002);            // 1.5 ulps: tie to even 2
  EXPECT_EQ(float_to_fp16(-std::ldexp(1023.5f, -24)), 0x8400);        // top subnormal rounds up to -2^-14
  EXPECT_EQ(float_to_fp16(-0.0f), 0x8000);
  EXPECT_EQ(float_to_fp16(-INFINITY), 0xfc00);
  EXPECT_TRUE(fp16_is_nan(float_to_fp16(NAN)));
  EXPECT_EQ(fp16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fp16_to_float(0x03ff), std::ldexp(1023.0f, -24));
}

void expect_fp16_matches_gcc(const std::vector<float>& floats) {
  size_t failures = 0;
  for (float f : floats) {
    const uint16_t got = float_to_fp16(f), want = gcc_fp16_bits(f);
    if (std::isnan(f)) {
      EXPECT_TRUE(fp16_is_nan(got)) << f;
    } else if (got != want && ++failures <= 10) {
      ADD_FAILURE() << std::hexfloat << f << ": got 0x" << std::hex << got << ", GCC 0x" << want;
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(HalfConvert, FloatToFp16MatchesGccOnEveryBoundary) {
  const auto floats = boundary_floats([](uint16_t h) { return fp16_to_float(h); });
  ASSERT_GT(floats.size(), 6u * 2 * 0x7000);  // every positive finite pattern took part
  expect_fp16_matches_gcc(floats);
}

TEST(HalfConvert, FloatToFp16MatchesGccOnRandomFloats) {
  expect_fp16_matches_gcc(random_floats(4'000'000, 1234));
  expect_fp16_matches_gcc({0.f, -0.f, INFINITY, -INFINITY, NAN, -NAN, 1e30f, -1e30f, 1e-40f, -1e-45f,
                           65536.f, 70000.f, std::ldexp(1.0f, -14), std::ldexp(1.0f, -15)});
}

TEST(HalfConvert, Bf16RoundTripsEveryPattern) {
  for (uint32_t h = 0; h <= 0xffffu; ++h) {
    const uint16_t b = static_cast<uint16_t>(h);
    const float f = bf16_to_float(b);
    EXPECT_EQ(to_bits(f), h << 16);
    if (bf16_is_nan(b)) {
      EXPECT_TRUE(bf16_is_nan(float_to_bf16(f))) << std::hex << h;
    } else {
      ASSERT_EQ(float_to_bf16(f), b) << std::hex << "pattern 0x" << h;
    }
  }
}

void expect_bf16_matches_careful(const std::vector<float>& floats) {
  size_t failures = 0;
  for (float f : floats) {
    const uint16_t got = float_to_bf16(f), want = careful_bf16(f);
    if (std::isnan(f)) {
      EXPECT_TRUE(bf16_is_nan(got)) << f;
    } else if (got != want && ++failures <= 10) {
      ADD_FAILURE() << std::hexfloat << f << ": got 0x" << std::hex << got << ", careful RNE 0x" << want;
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(HalfConvert, FloatToBf16MatchesCarefulRneOnEveryBoundary) {
  const auto floats = boundary_floats([](uint16_t h) { return bf16_to_float(h); });
  ASSERT_GT(floats.size(), 6u * 2 * 0x7000);
  expect_bf16_matches_careful(floats);
  // Overflow: the largest finite bf16 plus half an ulp and more go to Inf, less stays finite.
  const float max_bf16 = bf16_to_float(0x7f7f);
  const float half_ulp_above = static_cast<float>(static_cast<double>(max_bf16) + std::ldexp(1.0, 127 - 8));
  EXPECT_EQ(float_to_bf16(half_ulp_above), 0x7f80);
  EXPECT_EQ(float_to_bf16(std::nextafter(half_ulp_above, 0.f)), 0x7f7f);
  EXPECT_EQ(float_to_bf16(-FLT_MAX), 0xff80);
}

TEST(HalfConvert, FloatToBf16MatchesCarefulRneOnRandomFloats) {
  expect_bf16_matches_careful(random_floats(4'000'000, 99));
}

}  // namespace
}  // namespace ako::verify
