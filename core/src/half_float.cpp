#include "xpuperf/core/half_float.h"

#include <cmath>
#include <cstring>

namespace xpuperf {

uint16_t FloatToBfloat16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  if (std::isnan(value)) return 0x7fc0;
  const uint32_t rounding = 0x7fff + ((bits >> 16) & 1);  // round to nearest, ties to even
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float Bfloat16ToFloat(uint16_t value) {
  const uint32_t bits = static_cast<uint32_t>(value) << 16;
  float result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

uint16_t FloatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const int exponent = static_cast<int>((bits >> 23) & 0xff);
  uint32_t mantissa = bits & 0x7fffff;
  if (exponent == 0xff) {  // infinity, NaN (kept quiet)
    return sign | 0x7c00 | (mantissa != 0 ? 0x200 | (mantissa >> 13) : 0);
  }
  const int half_exponent = exponent - 127 + 15;
  if (half_exponent >= 0x1f) return sign | 0x7c00;  // overflow: infinity
  if (half_exponent <= 0) {                         // subnormal or zero
    if (half_exponent < -10) return sign;
    mantissa |= 0x800000;
    const int shift = 14 - half_exponent;  // 14..24
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1) != 0)) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(half_exponent) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1) != 0)) ++half;  // a carry gives infinity
  return static_cast<uint16_t>(sign | half);
}

float HalfToFloat(uint16_t half) {
  const bool negative = (half & 0x8000) != 0;
  const int exponent = (half >> 10) & 0x1f;
  const uint32_t mantissa = half & 0x3ff;
  if (exponent == 0) {
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return negative ? -magnitude : magnitude;
  }
  uint32_t bits = (negative ? 0x80000000u : 0u) | (mantissa << 13);
  bits |= exponent == 0x1f ? 0x7f800000u : static_cast<uint32_t>(exponent - 15 + 127) << 23;
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

}  // namespace xpuperf
