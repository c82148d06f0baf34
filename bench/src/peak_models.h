// Scalar models of the arithmetic the peak kernels' instructions do, bit for bit, used to verify
// every kernel's output (and tested on their own, so the check does not rest on the hardware it
// checks). Pure functions; thread-safe.
#pragma once

#include <cstdint>

namespace xpuperf::bench {

// fp32 -> bf16 rounding to nearest even (vcvtneps2bf16; NaN stays a quiet NaN), and back (exact).
uint16_t Bf16FromFloat(float value);
float FloatFromBf16(uint16_t bits);

// double -> IEEE binary16 rounding to nearest even (overflow to infinity), and back (exact).
uint16_t HalfFromDouble(double value);
double DoubleFromHalf(uint16_t bits);

// vfmadd231ph on one lane: acc x a + b rounded once to fp16.
uint16_t FmaHalfLane(uint16_t acc, uint16_t a, uint16_t b);

// vdpbf16ps on one lane, as the Intel SDM states it: the pair's odd element's product is added
// first, then the even one's; each product (exact in fp32) and each sum rounded to nearest even,
// denormal inputs read as zero and denormal results flushed to zero. a_pair/b_pair: element 2i in
// bits 0-15, 2i+1 in bits 16-31.
float DpBf16Lane(float acc, uint32_t a_pair, uint32_t b_pair);

// vpdpbusd on one lane: acc + sum of the 4 products of unsigned bytes of a_quad and signed bytes
// of b_quad, wrapping modulo 2^32 (the non-saturating form).
int32_t DpBusdLane(int32_t acc, uint32_t a_quad, uint32_t b_quad);
// The AVX2 sequence vpmaddubsw + vpmaddwd(1) + vpaddd on one lane: as DpBusdLane, but each pair
// sum (bytes 0+1, 2+3) saturates to int16 first.
int32_t MaddubsLane(int32_t acc, uint32_t a_quad, uint32_t b_quad);

}  // namespace xpuperf::bench
