#pragma once
// bf16 / fp16 <-> float on the host, bit-exact with CUDA's round-to-nearest-even conversions
// (tests/cpu/verify/gpu/half_convert_test.cpp checks them exhaustively against GCC's _Float16).
#include <cstdint>
#include <cstring>

namespace ako::verify {

inline float bf16_to_float(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Round to nearest even, as CUDA's __float2bfloat16_rn; NaN becomes the canonical NaN 0x7fff.
inline uint16_t float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline float fp16_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, u;
  if (exp == 0) {
    if (man == 0) {
      u = sign;
    } else {  // subnormal: normalise
      exp = 127 - 15 + 1;
      while (!(man & 0x400u)) { man <<= 1; --exp; }
      man &= 0x3ffu;
      u = sign | (exp << 23) | (man << 13);
    }
  } else if (exp == 31) {
    u = sign | 0x7f800000u | (man << 13);
  } else {
    u = sign | ((exp + 127 - 15) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Round to nearest even, as CUDA's __float2half_rn; NaN becomes the canonical NaN 0x7fff.
inline uint16_t float_to_fp16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  const uint32_t sign = (u >> 16) & 0x8000u;
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return 0x7fffu;                                   // NaN
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);    // >= 65520 (max + half ulp), Inf
  // Express |f| as an integer `bits` in units of 2^-shift fp16 ulps, then round off `shift` bits.
  uint32_t bits, shift;
  if (a >= 0x38800000u) {             // fp16 normal (|f| >= 2^-14): rebias 127 -> 15, keep 10 of 23 bits
    bits = a - 0x38000000u;           // exponent field 112 lower; the mantissa stays in place
    shift = 13;
  } else {                            // fp16 subnormal or zero: value = m * 2^(e - 150), ulp 2^-24
    const uint32_t e = a >> 23;
    if (e < 102) return static_cast<uint16_t>(sign);                     // |f| < 2^-25: rounds to 0
    bits = (a & 0x7fffffu) | 0x800000u;  // implicit bit made explicit
    shift = 126 - e;                     // 14 (e = 112) .. 24 (e = 102)
  }
  uint32_t v = bits >> shift;
  const uint32_t rest = bits & ((1u << shift) - 1u), half = 1u << (shift - 1u);
  if (rest > half || (rest == half && (v & 1u))) ++v;  // a carry into the exponent is correct
  return static_cast<uint16_t>(sign | v);
}

}  // namespace ako::verify
