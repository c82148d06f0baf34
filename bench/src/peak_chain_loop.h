// The one loop every peak kernel runs, over a small vector-traits type per ISA, so the AVX2 and
// AVX-512 variants share the chain count, the unrolling and the operand sequence that the scalar
// models in peak_models.h check. Included only by the per-ISA files peak_kernels_<isa>.cpp, which
// are compiled with that ISA's flags: everything here has internal linkage, so no function built
// with AVX-512 enabled can be picked by the linker for code that runs on a CPU without it.
//
// A traits type T provides:
//   Vec, Operand, Out   accumulator vector, multiplicand vector, element type Store writes
//   kLanes, kChains     Out elements per Vec; independent accumulators kept in registers
//   Splat(bits)         an accumulator with every element's bit pattern = bits
//   SplatOperand(bits)  an operand with every 16/32/64-bit element = bits
//   Step(acc, a, b)     one dependent step of the chain (one FMA or dot-product instruction)
//   Store(out, acc)     writes kLanes elements
#pragma once

#include <cstdint>

#include "peak_operands.h"

namespace xpuperf::bench {
namespace {

// Step i of every chain uses operand b[i % 2]: the fp16 chain alternates +step/-step so it can run
// as long as the others and stay exact.
template <class T>
void RunChainLoop(int64_t iterations, const PeakOperands& ops, void* out) {
  static_assert(T::kChains <= kMaxPeakChains);
  typename T::Vec acc[T::kChains];
#pragma GCC unroll 16
  for (int c = 0; c < T::kChains; ++c) acc[c] = T::Splat(ops.start[c]);
  const typename T::Operand a = T::SplatOperand(ops.a);
  const typename T::Operand b0 = T::SplatOperand(ops.b[0]);
  const typename T::Operand b1 = T::SplatOperand(ops.b[1]);
  int64_t i = 0;
  for (; i + 2 <= iterations; i += 2) {
#pragma GCC unroll 16
    for (int c = 0; c < T::kChains; ++c) acc[c] = T::Step(acc[c], a, b0);
#pragma GCC unroll 16
    for (int c = 0; c < T::kChains; ++c) acc[c] = T::Step(acc[c], a, b1);
  }
  if (i < iterations) {
#pragma GCC unroll 16
    for (int c = 0; c < T::kChains; ++c) acc[c] = T::Step(acc[c], a, b0);
  }
  auto* typed = static_cast<typename T::Out*>(out);
  for (int c = 0; c < T::kChains; ++c) T::Store(typed + c * T::kLanes, acc[c]);
}

}  // namespace
}  // namespace xpuperf::bench
