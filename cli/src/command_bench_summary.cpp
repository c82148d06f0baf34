#include <fmt/format.h>

#include "bench_summary.h"

namespace xpuperf::cli {
namespace {

// The parameters that tell sweep points apart, without the derived ones.
std::string ShortParameters(const nlohmann::json& parameters) {
  std::string text;
  for (const char* key : {"precision", "m", "n", "k", "kernel", "level", "plateau_min_bytes",
                          "plateau_max_bytes", "direction", "host_memory", "size", "host_node",
                          "causal", "seq_len", "head_dim", "heads", "batch"}) {
    if (!parameters.contains(key)) continue;
    const nlohmann::json& value = parameters[key];
    text += (text.empty() ? "" : " ") + std::string(key) + "=" +
            (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return text;
}

}  // namespace

std::string RenderBenchSummary(const std::vector<bench::Measurement>& measurements) {
  TextTable table("Benchmark summary (value from the median sample)",
                  {{"benchmark"},
                   {"metric"},
                   {"parameters"},
                   {"median", TextTable::Align::kRight},
                   {"unit"},
                   {"CV", TextTable::Align::kRight},
                   {"% of nominal", TextTable::Align::kRight}});
  for (const bench::Measurement& m : measurements) {
    if (m.benchmark == "cache_sweep" && m.metric == "read_bandwidth") continue;
    const std::string percent = m.nominal_peak && *m.nominal_peak > 0
                                    ? fmt::format("{:.1f}%", 100 * m.value / *m.nominal_peak)
                                    : "";
    table.AddRow({m.benchmark, m.metric, ShortParameters(m.parameters),
                  fmt::format("{:.2f}", m.value), m.unit,
                  fmt::format("{:.1f}%", 100 * m.statistics.cv), percent});
  }
  return table.Render(60);
}

}  // namespace xpuperf::cli
