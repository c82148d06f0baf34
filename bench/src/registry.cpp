#include "xpuperf/bench/registry.h"

#include <fmt/format.h>

#include <algorithm>

namespace xpuperf::bench {

std::string_view ComponentName(Component component) {
  switch (component) {
    case Component::kCompute:
      return "compute";
    case Component::kMemory:
      return "memory";
    case Component::kHostTransfer:
      return "host_transfer";
    case Component::kNetwork:
      return "network";
    case Component::kAttention:
      return "attention";
  }
  return "unknown";
}

Result<Component> ParseComponent(std::string_view name) {
  for (Component c : {Component::kCompute, Component::kMemory, Component::kHostTransfer,
                      Component::kNetwork, Component::kAttention}) {
    if (ComponentName(c) == name) return c;
  }
  return MakeError(ErrorCode::kNotFound,
                   fmt::format("unknown component '{}' (known: compute, memory, host_transfer, "
                               "network, attention)",
                               name));
}

void BenchmarkRegistry::Add(std::unique_ptr<Benchmark> benchmark) {
  benchmarks_.push_back(std::move(benchmark));
}

Benchmark* BenchmarkRegistry::Find(std::string_view name) const {
  for (const auto& benchmark : benchmarks_) {
    if (benchmark->name() == name) return benchmark.get();
  }
  return nullptr;
}

std::string BenchmarkRegistry::Names() const {
  std::string names;
  for (const auto& benchmark : benchmarks_) {
    names += (names.empty() ? "" : ", ") + benchmark->name();
  }
  return names;
}

void MarkUnstable(Measurement& measurement, std::string reason) {
  measurement.stable = false;
  auto& reasons = measurement.unstable_reasons;
  if (std::find(reasons.begin(), reasons.end(), reason) == reasons.end()) {
    reasons.push_back(std::move(reason));
  }
}

Measurement MakeThroughput(std::string benchmark, std::string metric, const TimedSamples& samples,
                           double count, bool is_flops, const RunContext& context) {
  Measurement m;
  m.benchmark = std::move(benchmark);
  m.metric = std::move(metric);
  m.sample_seconds = samples.seconds_per_rep;
  m.statistics = ComputeStatistics(samples.seconds_per_rep);
  m.repetitions_per_sample = samples.repetitions;
  m.unit = is_flops ? "GFLOP/s" : "GB/s";
  (is_flops ? m.flops_per_repetition : m.bytes_per_repetition) = count;
  m.value = m.statistics.median > 0 ? count / m.statistics.median / 1e9 : 0;
  m.formula = fmt::format("{} {:.6g} {} per repetition / median {:.6g} s per repetition / 1e9",
                          m.unit, count, is_flops ? "FLOP" : "bytes", m.statistics.median);
  m.timing_source = context.queue != nullptr ? context.queue->timing_source() : "";
  return m;
}

}  // namespace xpuperf::bench
