#include "xpuperf/bench_commands/bench_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "xpuperf/render/text_table.h"

namespace xpuperf::bench_commands {
namespace {

// The parameters that tell sweep points apart, without the derived ones.
constexpr const char* kShownParameters[] = {"precision",
                                            "m",
                                            "n",
                                            "k",
                                            "kernel",
                                            "level",
                                            "plateau_min_bytes",
                                            "plateau_max_bytes",
                                            "direction",
                                            "host_memory",
                                            "size",
                                            "dtype",
                                            "redop",
                                            "in_place",
                                            "host_node",
                                            "causal",
                                            "seq_len",
                                            "head_dim",
                                            "heads",
                                            "batch"};

std::string ShortParameters(const nlohmann::json& parameters) {
  std::string text;
  for (const char* key : kShownParameters) {
    if (!parameters.contains(key)) continue;
    const nlohmann::json& value = parameters[key];
    text += (text.empty() ? "" : " ") + std::string(key) + "=" +
            (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return text;
}

}  // namespace

std::string RenderBenchSummary(const std::vector<bench::Measurement>& measurements) {
  render::TextTable table("Benchmark summary (value from the median sample)",
                          {{"benchmark"},
                           {"metric"},
                           {"parameters"},
                           {"median", render::TextTable::Align::kRight},
                           {"unit"},
                           {"robust CV", render::TextTable::Align::kRight},
                           {"% of nominal", render::TextTable::Align::kRight},
                           {"stable"}});
  for (const bench::Measurement& m : measurements) {
    if (m.benchmark == "cache_sweep" && m.metric == "read_bandwidth") continue;
    const std::string percent = m.nominal_peak && *m.nominal_peak > 0
                                    ? fmt::format("{:.1f}%", 100 * m.value / *m.nominal_peak)
                                    : "";
    table.AddRow({m.benchmark, m.metric, ShortParameters(m.parameters),
                  fmt::format("{:.2f}", m.value), m.unit,
                  fmt::format("{:.1f}%", 100 * m.statistics.robust_cv), percent,
                  m.stable ? "yes" : "NO"});
  }
  return table.Render(60);
}

}  // namespace xpuperf::bench_commands

namespace xpuperf::bench_commands {
namespace {

// Splits "<benchmark> {point}[ on <device>]: <reason>" into benchmark and reason; empty reason
// when the line has another shape.
std::pair<std::string, std::string> SplitSkipped(const std::string& line) {
  const size_t open = line.find(" {");
  if (open == std::string::npos) return {line, ""};
  int depth = 0;
  bool in_string = false;
  for (size_t i = open + 1; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '{') ++depth;
    if (c == '}' && --depth == 0) {
      const size_t colon = line.find(": ", i);
      if (colon == std::string::npos) return {line, ""};
      return {line.substr(0, open), line.substr(colon + 2)};
    }
  }
  return {line, ""};
}

}  // namespace

std::string RenderSkipped(const std::vector<std::string>& skipped) {
  // reason -> (points, benchmarks in first-seen order, the single line when there is one)
  struct Group {
    int points = 0;
    std::vector<std::string> benchmarks;
    std::string line;
  };
  std::vector<std::pair<std::string, Group>> groups;
  for (const std::string& line : skipped) {
    auto split = SplitSkipped(line);
    const std::string& benchmark = split.first;
    std::string& reason = split.second;  // a named variable: lambdas may capture it
    if (reason.empty()) reason = line;
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& group) { return group.first == reason; });
    if (it == groups.end()) {
      groups.push_back({reason, {}});
      it = std::prev(groups.end());
    }
    Group& group = it->second;
    ++group.points;
    group.line = line;
    if (std::find(group.benchmarks.begin(), group.benchmarks.end(), benchmark) ==
        group.benchmarks.end()) {
      group.benchmarks.push_back(benchmark);
    }
  }
  std::string text;
  for (const auto& [reason, group] : groups) {
    if (group.points == 1) {
      text += "skipped: " + group.line + "\n";
      continue;
    }
    std::string names;
    for (const std::string& name : group.benchmarks) names += (names.empty() ? "" : ", ") + name;
    text += fmt::format("skipped: {} points of {}: {}\n", group.points, names, reason);
  }
  return text;
}

}  // namespace xpuperf::bench_commands
