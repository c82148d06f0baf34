#include "xpuperf/bench/stream.h"

#include <fmt/format.h>

namespace xpuperf::bench {

std::string_view StreamKernelName(StreamKernel kernel) {
  switch (kernel) {
    case StreamKernel::kCopy:
      return "copy";
    case StreamKernel::kScale:
      return "scale";
    case StreamKernel::kAdd:
      return "add";
    case StreamKernel::kTriad:
      return "triad";
  }
  return "unknown";
}

Result<StreamKernel> ParseStreamKernel(std::string_view name) {
  for (StreamKernel k :
       {StreamKernel::kCopy, StreamKernel::kScale, StreamKernel::kAdd, StreamKernel::kTriad}) {
    if (StreamKernelName(k) == name) return k;
  }
  return MakeError(
      ErrorCode::kInvalidArgument,
      fmt::format("stream: unknown kernel '{}' (known: copy, scale, add, triad)", name));
}

double StreamBytesPerElement(StreamKernel kernel) {
  const bool two_inputs = kernel == StreamKernel::kAdd || kernel == StreamKernel::kTriad;
  return 8.0 * (two_inputs ? 3 : 2);
}

double WriteAllocateBytesPerElement(StreamKernel kernel) {
  return StreamBytesPerElement(kernel) + 8.0;
}

double StreamFlopsPerElement(StreamKernel kernel) {
  switch (kernel) {
    case StreamKernel::kCopy:
      return 0;
    case StreamKernel::kScale:
    case StreamKernel::kAdd:
      return 1;
    case StreamKernel::kTriad:
      return 2;
  }
  return 0;
}

void InitStreamArrays(std::span<double> a, std::span<double> b, std::span<double> c, int threads) {
  const int64_t n = static_cast<int64_t>(a.size());
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t i = 0; i < n; ++i) {
    a[i] = 1.0 + static_cast<double>(i % 7) * 0.25;
    b[i] = 2.0 + static_cast<double>(i % 5) * 0.5;
    c[i] = 0.0;
  }
}

void RunStreamKernel(StreamKernel kernel, std::span<const double> a_span,
                     std::span<const double> b_span, std::span<double> c_span, int threads) {
  const int64_t n = static_cast<int64_t>(c_span.size());
  const double* __restrict a = a_span.data();
  const double* __restrict b = b_span.data();
  double* __restrict c = c_span.data();
  const double s = kStreamScalar;
  switch (kernel) {
    case StreamKernel::kCopy:
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int64_t i = 0; i < n; ++i) c[i] = a[i];
      break;
    case StreamKernel::kScale:
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int64_t i = 0; i < n; ++i) c[i] = s * a[i];
      break;
    case StreamKernel::kAdd:
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
      break;
    case StreamKernel::kTriad:
#pragma omp parallel for schedule(static) num_threads(threads)
      for (int64_t i = 0; i < n; ++i) c[i] = a[i] + s * b[i];
      break;
  }
}

Status VerifyStreamKernel(StreamKernel kernel, std::span<const double> a, std::span<const double> b,
                          std::span<const double> c) {
  size_t wrong = 0;
  size_t first = 0;
  double first_expected = 0;
  for (size_t i = 0; i < c.size(); ++i) {
    double expected = 0;
    switch (kernel) {
      case StreamKernel::kCopy:
        expected = a[i];
        break;
      case StreamKernel::kScale:
        expected = kStreamScalar * a[i];
        break;
      case StreamKernel::kAdd:
        expected = a[i] + b[i];
        break;
      case StreamKernel::kTriad:
        expected = a[i] + kStreamScalar * b[i];
        break;
    }
    if (c[i] != expected && wrong++ == 0) {
      first = i;
      first_expected = expected;
    }
  }
  if (wrong == 0) return Status::Ok();
  return MakeError(
      ErrorCode::kInternal,
      fmt::format("stream {} verification failed: {} of {} elements wrong; c[{}] = "
                  "{:.17g}, expected {:.17g}",
                  StreamKernelName(kernel), wrong, c.size(), first, c[first], first_expected));
}

}  // namespace xpuperf::bench
