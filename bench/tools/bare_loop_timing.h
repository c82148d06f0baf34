// The timing both bare-loop referees (openblas_gemm_direct, onednn_gemm_direct) share, so that they
// time exactly as each other and as xpuperf's sampler: repetitions doubled until one sample lasts
// >= 10 ms, one warm-up call, then `samples` samples; the median seconds per repetition.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

template <typename Call>
double MedianSecondsPerRepetition(Call&& call, int samples) {
  const auto elapsed = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  long repetitions = 1;
  while (true) {
    const auto start = std::chrono::steady_clock::now();
    for (long r = 0; r < repetitions; ++r) call();
    if (elapsed(start) >= 0.01) break;
    repetitions *= 2;
  }
  call();  // warm-up
  std::vector<double> per_rep;
  for (int s = 0; s < samples; ++s) {
    const auto start = std::chrono::steady_clock::now();
    for (long r = 0; r < repetitions; ++r) call();
    per_rep.push_back(elapsed(start) / static_cast<double>(repetitions));
  }
  std::sort(per_rep.begin(), per_rep.end());
  return samples % 2 == 1 ? per_rep[samples / 2]
                          : (per_rep[samples / 2 - 1] + per_rep[samples / 2]) / 2;
}
