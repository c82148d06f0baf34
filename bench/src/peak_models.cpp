#include "peak_models.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace xpuperf::bench {
namespace {

// DAZ on input and FTZ on output: a denormal becomes a zero of the same sign.
float FlushDenormal(float value) {
  return std::fpclassify(value) == FP_SUBNORMAL ? std::copysign(0.0f, value) : value;
}

int32_t SignedByte(uint32_t quad, int index) {
  return static_cast<int8_t>(static_cast<uint8_t>(quad >> (8 * index)));
}
int32_t UnsignedByte(uint32_t quad, int index) { return static_cast<uint8_t>(quad >> (8 * index)); }

}  // namespace

uint16_t Bf16FromFloat(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  const uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float FloatFromBf16(uint16_t bits) { return std::bit_cast<float>(uint32_t{bits} << 16); }

uint16_t HalfFromDouble(double value) {
  const uint16_t sign = std::signbit(value) ? 0x8000 : 0;
  const double magnitude = std::fabs(value);
  if (std::isnan(value)) return sign | 0x7e00;
  // Quantum of the binade (2^(e-10) for normals, 2^-24 below 2^-14); the quotient is exact and
  // nearbyint rounds it to nearest even.
  const int exponent = magnitude >= 0x1p-14 ? std::ilogb(magnitude) : -14;
  const double quantum = std::ldexp(1.0, exponent - 10);
  const double rounded = std::nearbyint(magnitude / quantum) * quantum;
  if (rounded >= 65520.0 || std::isinf(magnitude)) return sign | 0x7c00;
  if (rounded < 0x1p-14) return sign | static_cast<uint16_t>(rounded / 0x1p-24);
  const int e = std::ilogb(rounded);
  const auto mantissa = static_cast<uint16_t>(std::ldexp(rounded, 10 - e) - 1024);
  return sign | static_cast<uint16_t>((e + 15) << 10) | mantissa;
}

double DoubleFromHalf(uint16_t bits) {
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  if (exponent == 0x1f) return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

uint16_t FmaHalfLane(uint16_t acc, uint16_t a, uint16_t b) {
  // Products of two 11-bit significands and the sum with a third fit a double's 53 bits exactly
  // over fp16's exponent range, so one rounding (to fp16) remains, as in the instruction.
  return HalfFromDouble(DoubleFromHalf(acc) * DoubleFromHalf(a) + DoubleFromHalf(b));
}

float DpBf16Lane(float acc, uint32_t a_pair, uint32_t b_pair) {
  const auto element = [](uint32_t pair, int index) {
    return FlushDenormal(FloatFromBf16(static_cast<uint16_t>(pair >> (16 * index))));
  };
  float sum = FlushDenormal(acc);
  for (const int index : {1, 0}) {
    const float product = FlushDenormal(element(a_pair, index) * element(b_pair, index));
    sum = FlushDenormal(sum + product);
  }
  return sum;
}

int32_t DpBusdLane(int32_t acc, uint32_t a_quad, uint32_t b_quad) {
  uint32_t sum = static_cast<uint32_t>(acc);
  for (int i = 0; i < 4; ++i) {
    sum += static_cast<uint32_t>(UnsignedByte(a_quad, i) * SignedByte(b_quad, i));
  }
  return static_cast<int32_t>(sum);
}

int32_t MaddubsLane(int32_t acc, uint32_t a_quad, uint32_t b_quad) {
  uint32_t sum = static_cast<uint32_t>(acc);
  for (int pair = 0; pair < 2; ++pair) {
    const int32_t wide = UnsignedByte(a_quad, 2 * pair) * SignedByte(b_quad, 2 * pair) +
                         UnsignedByte(a_quad, 2 * pair + 1) * SignedByte(b_quad, 2 * pair + 1);
    sum += static_cast<uint32_t>(std::clamp(wide, -32768, 32767));
  }
  return static_cast<int32_t>(sum);
}

}  // namespace xpuperf::bench
