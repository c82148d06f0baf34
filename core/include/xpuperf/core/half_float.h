// IEEE binary16 and bfloat16 on the host, without the compiler's _Float16 (clang 14 on x86-64,
// which the fuzz build uses, has none): round to nearest, ties to even, as the hardware conversions
// do. For the data and the verification of benchmarks in these types (PJRT programs, collectives).
#pragma once

#include <cstdint>

namespace xpuperf {

// Overflow gives infinity, NaN stays a quiet NaN, subnormals are kept.
uint16_t FloatToHalf(float value);
float HalfToFloat(uint16_t half);
// NaN gives the quiet NaN 0x7fc0.
uint16_t FloatToBfloat16(float value);
float Bfloat16ToFloat(uint16_t value);

}  // namespace xpuperf
