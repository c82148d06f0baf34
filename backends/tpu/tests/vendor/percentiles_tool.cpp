// The referee's view of xpuperf's TPU percentiles: one distribution per stdin line as JSON
// {"scale", "growth", "finite", "counts": [...], "min", "max", "mean"}, made into the runtime's
// Distribution message and read as the TPU backend reads it (ToDistribution, unit scale 1); one
// line per input on stdout: {"p50", "p90", "p95", "p999"} (17 significant digits).
// Used by tpu_percentiles_vs_tpu_info.py.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "runtime_values.h"

int main() {
  using xpuperf::tpu::runtime::Distribution;
  for (std::string line; std::getline(std::cin, line);) {
    const nlohmann::json in = nlohmann::json::parse(line);
    Distribution d;
    auto* exponential = d.mutable_bucket_options()->mutable_exponential_buckets();
    exponential->set_scale(in["scale"].get<double>());
    exponential->set_growth_factor(in["growth"].get<double>());
    exponential->set_num_finite_buckets(in["finite"].get<int>());
    int64_t count = 0;
    for (const auto& c : in["counts"]) {
      d.add_bucket_counts(c.get<int64_t>());
      count += c.get<int64_t>();
    }
    d.set_count(count);
    d.set_min(in["min"].get<double>());
    d.set_max(in["max"].get<double>());
    d.set_mean(in["mean"].get<double>());
    auto converted = xpuperf::tpu::ToDistribution(d, 1.0);
    if (!converted.ok()) {
      std::printf("{\"error\": \"%s\"}\n", converted.error().message.c_str());
      continue;
    }
    std::printf("{\"p50\": %.17g, \"p90\": %.17g, \"p95\": %.17g, \"p999\": %.17g}\n",
                converted->Percentile(0.5).value_or(-1), converted->Percentile(0.9).value_or(-1),
                converted->Percentile(0.95).value_or(-1),
                converted->Percentile(0.999).value_or(-1));
  }
  return 0;
}
