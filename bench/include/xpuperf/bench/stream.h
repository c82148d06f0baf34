// STREAM kernels (copy, scale, add, triad) over doubles, OpenMP static schedule, with STREAM's
// byte counting and the write-allocate-aware count side by side.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf::bench {

enum class StreamKernel { kCopy, kScale, kAdd, kTriad };

std::string_view StreamKernelName(StreamKernel kernel);
// kInvalidArgument naming the known kernels.
Result<StreamKernel> ParseStreamKernel(std::string_view name);

// STREAM's count per element: 8 bytes per array read or written (copy/scale 16, add/triad 24).
double StreamBytesPerElement(StreamKernel kernel);
// Plus the read of the destination line that a normal store triggers (write-allocate): copy/scale
// 24, add/triad 32, i.e. STREAM x 1.5 and x 4/3.
double WriteAllocateBytesPerElement(StreamKernel kernel);
// FLOPs per element: copy 0, scale 1, add 1, triad 2.
double StreamFlopsPerElement(StreamKernel kernel);

// The scalar s of scale and triad.
inline constexpr double kStreamScalar = 3.0;

// Fills a[i] and b[i] with a pattern (never zero) and c with zeros, each thread touching the part
// it will later process (first-touch NUMA placement). Arrays must have the same size.
void InitStreamArrays(std::span<double> a, std::span<double> b, std::span<double> c, int threads);

// One pass: copy c = a, scale c = s a, add c = a + b, triad c = a + s b (idempotent, so
// repetitions do not change the result).
void RunStreamKernel(StreamKernel kernel, std::span<const double> a, std::span<const double> b,
                     std::span<double> c, int threads);

// Checks every element of c against the kernel's formula; kInternal with the count of wrong
// elements and the first one.
Status VerifyStreamKernel(StreamKernel kernel, std::span<const double> a, std::span<const double> b,
                          std::span<const double> c);

}  // namespace xpuperf::bench
