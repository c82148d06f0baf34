// StableHLO programs of the PJRT benchmarks, generated as MLIR text. Each timed program repeats its
// work `n` times inside one compiled stablehlo.while (n is the last argument, an i64 scalar, so one
// executable serves every repetition count), so dispatch cost is paid once per execution rather
// than once per repetition. Where an iteration would otherwise compute the same value from the same
// inputs (GEMM, collectives, attention), the loop passes its inputs through a
// stablehlo.optimization_barrier together with the counter: the compiler cannot prove them
// invariant, so it cannot hoist the work out of the loop, and every iteration's result equals the
// first one's (which the benchmarks verify).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/bench/stream.h"
#include "xpuperf/pjrt/element_type.h"

namespace xpuperf::pjrt_bench {

using pjrt::ElementType;

// C = A(m x k) . B(k x n); inputs `in`, result `out` (f32 for bf16/fp16 inputs asks for f32
// accumulation; i32 for i8). Arguments: a, b, n. Result: C.
std::string GemmProgram(int64_t m, int64_t n, int64_t k, ElementType in, ElementType out);

// The kernels and their names are STREAM's (xpuperf/bench/stream.h).
using bench::StreamKernel;
// Arrays touched per iteration: copy and scale 2 (x read, x written), add and triad 3.
int StreamArrays(StreamKernel kernel);
// Per iteration over `elements`: copy x = x + s, scale x = x * s, add x = x + y, triad
// x = x + s * y (Google's suite: copy is x + 1; s is a runtime scalar so nothing folds).
// Arguments: x, y, s (scalar of `type`), n. Result: x.
std::string StreamProgram(StreamKernel kernel, int64_t elements, ElementType type);

enum class CollectiveKind { kAllReduce, kAllGather, kReduceScatter, kAllToAll, kCollectivePermute };
std::string_view CollectiveKindName(CollectiveKind kind);
// Output elements per replica for `elements` input elements over `replicas`.
int64_t CollectiveOutputElements(CollectiveKind kind, int64_t elements, int replicas);
// One collective over all `replicas` (replica style: one replica per device, one group) per
// iteration; all_reduce and reduce_scatter add, all_gather and reduce_scatter work on dimension
// 0, all_to_all splits and concatenates dimension 0, collective_permute sends to the next replica
// in a ring. Arguments: x (elements), n. Result: the last iteration's output.
std::string CollectiveProgram(CollectiveKind kind, int64_t elements, ElementType type,
                              int replicas);

// softmax(Q K^T / sqrt(d) [+ causal mask]) V over (batch, heads, seq, head_dim) tensors of
// `type`; scores and softmax in f32. Arguments: q, k, v, n. Result: O in `type`.
std::string AttentionProgram(int64_t batch, int64_t heads, int64_t seq, int64_t head_dim,
                             ElementType type, bool causal);

// The smallest program with the loop's shape and no work (n ignored): what one execution costs.
// Arguments: x (one f32), n. Result: x.
std::string DispatchProgram();

}  // namespace xpuperf::pjrt_bench
