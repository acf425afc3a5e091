#pragma once
// bf16 / fp16 <-> float on the host, bit-exact with CUDA's round-to-nearest-even conversions.
#include <cstdint>
#include <cstring>

namespace ako::verify {

inline float bf16_to_float(uint16_t h) {
  uint32_t u = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

inline uint16_t float_to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
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

inline uint16_t float_to_fp16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u);     // NaN
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);    // overflow -> Inf
  if (a < 0x38800000u) {                                                  // subnormal or zero
    if (a < 0x33000000u) return static_cast<uint16_t>(sign);
    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126 - e;                                             // 14 + (113 - e) - 1
    uint32_t r = m >> (shift - 0);
    uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    r >>= 0;
    uint32_t v = m >> shift;
    (void)r;
    if (rem > half || (rem == half && (v & 1u))) ++v;
    return static_cast<uint16_t>(sign | v);
  }
  uint32_t v = a - 0x38000000u;                                          // rebias exponent
  uint32_t rem = v & 0x1fffu;
  v >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (v & 1u))) ++v;
  return static_cast<uint16_t>(sign | v);
}

}  // namespace ako::verify
