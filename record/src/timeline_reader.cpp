#include "xpuperf/record/timeline_reader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "xpuperf/core/energy_check.h"
#include "xpuperf/core/error_context.h"
#include "xpuperf/core/input_file.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/record/timeline_files.h"

namespace xpuperf::record {
namespace {

using nlohmann::json;

Error LineError(size_t line, const std::string& what) {
  return MakeError(ErrorCode::kParse,
                   std::string(kTimelineJsonl) + " line " + std::to_string(line) + ": " + what);
}

bool GetInt(const json& j, const char* key, int64_t& out) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return false;
  out = it->get<int64_t>();
  return true;
}

std::string GetString(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

Result<TimelineData> ParseTimelineJsonl(std::string_view text) {
  TimelineData data;
  size_t line_number = 0;
  bool header_seen = false;
  while (!text.empty()) {
    ++line_number;
    const size_t newline = text.find('\n');
    const bool complete = newline != std::string_view::npos;
    std::string_view line = text.substr(0, complete ? newline : text.size());
    text.remove_prefix(complete ? newline + 1 : text.size());
    if (line.empty()) continue;
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      if (!complete) {
        data.dropped_partial_line = true;  // cut short by a kill mid-write
        break;
      }
      return LineError(line_number, "not a JSON object");
    }
    const std::string type = GetString(j, "type");
    if (type == "header") {
      header_seen = true;
      GetInt(j, "start_wall_ns", data.start_wall_ns);
      if (auto it = j.find("rate_hz"); it != j.end() && it->is_number()) {
        data.rate_hz = it->get<double>();
      }
      data.host = GetString(j, "host");
      if (auto it = j.find("command"); it != j.end() && it->is_array()) {
        for (const json& a : *it) {
          if (a.is_string()) data.command.push_back(a.get<std::string>());
        }
      }
    } else if (type == "series") {
      int64_t index = -1;
      if (!GetInt(j, "index", index) || index != static_cast<int64_t>(data.table.size())) {
        return LineError(line_number, "series index out of order (expected " +
                                          std::to_string(data.table.size()) + ")");
      }
      const std::string metric = GetString(j, "metric");
      const std::string device = GetString(j, "device");
      if (metric.empty() || device.empty()) {
        return LineError(line_number, "a series needs a metric and a device");
      }
      Labels labels;
      if (auto it = j.find("labels"); it != j.end() && it->is_object()) {
        for (const auto& [k, v] : it->items()) {
          if (!v.is_string()) return LineError(line_number, "label values must be strings");
          labels.Set(k, v.get<std::string>());
        }
      }
      if (data.table.Intern(metric, device, labels) != static_cast<uint32_t>(index)) {
        return LineError(line_number, "duplicate series " + SeriesKey(metric, device, labels));
      }
    } else if (type == "tick") {
      if (!header_seen) return LineError(line_number, "a tick before the header");
      Tick tick;
      if (!GetInt(j, "wall_ns", tick.wall_ns) || !GetInt(j, "mono_ns", tick.mono_ns)) {
        return LineError(line_number, "a tick needs integer wall_ns and mono_ns");
      }
      // Bounded and in order, as the recorder writes them (differences then cannot overflow).
      constexpr int64_t kMaxNs = int64_t{1} << 62;
      if (tick.wall_ns < 0 || tick.wall_ns >= kMaxNs || tick.mono_ns < 0 ||
          tick.mono_ns >= kMaxNs) {
        return LineError(line_number, "tick times out of range");
      }
      // The wall clock may step (NTP); the monotonic clock may not.
      if (!data.ticks.empty() && tick.mono_ns < data.ticks.back().mono_ns) {
        return LineError(line_number, "ticks out of time order");
      }
      auto values = j.find("values");
      if (values == j.end() || !values->is_array()) {
        return LineError(line_number, "a tick needs a values array");
      }
      for (const json& pair : *values) {
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number_unsigned() ||
            !pair[1].is_number()) {
          return LineError(line_number, "values are [series, number] pairs");
        }
        const auto series = pair[0].get<uint64_t>();
        if (series >= data.table.size()) {
          return LineError(line_number, "value for unknown series " + std::to_string(series));
        }
        const double value = pair[1].get<double>();
        if (!std::isfinite(value)) return LineError(line_number, "a value is not finite");
        tick.values.push_back({static_cast<uint32_t>(series), value});
      }
      data.ticks.push_back(std::move(tick));
    } else {
      return LineError(line_number, "unknown line type '" + type + "'");
    }
  }
  if (!header_seen) {
    return MakeError(ErrorCode::kParse, std::string(kTimelineJsonl) +
                                            ": no header line (not an xpuperf record timeline)");
  }
  return data;
}

Result<TimelineData> ReadTimeline(const std::string& path) {
  std::error_code ec;
  std::string file = path;
  if (std::filesystem::is_directory(path, ec)) file = path + "/" + std::string(kTimelineJsonl);
  // Read under the input policy (docs/POLICIES.md): a regular file, bounded like decompressed
  // input.
  Result<std::string> text = ReadInputFile(file, MaxDecompressedBytes());
  if (!text.ok()) {
    if (text.error().code != ErrorCode::kNotFound) return text.error();
    return MakeError(ErrorCode::kNotFound,
                     file + ": cannot open (a directory written by `xpuperf record --out`?)");
  }
  Result<TimelineData> data = ParseTimelineJsonl(*text);
  if (!data.ok()) return WithContext(data.error(), file);
  return data;
}

std::vector<EnergyTrack> EnergyTracks(const TimelineData& data) {
  std::map<uint32_t, EnergyTrack> counters, powers;
  std::map<uint32_t, std::vector<double>> trailing;  // power tracks' trailing-interval curves
  std::map<uint32_t, double> last_value, last_power;
  std::map<uint32_t, int64_t> last_ns;
  // One time base: the first tick's wall clock plus monotonic time since it, so a wall-clock step
  // during the recording neither reorders samples nor stretches an interval.
  const int64_t wall0 = data.ticks.empty() ? 0 : data.ticks.front().wall_ns;
  const int64_t mono0 = data.ticks.empty() ? 0 : data.ticks.front().mono_ns;
  for (const Tick& raw : data.ticks) {
    Tick tick{wall0 + (raw.mono_ns - mono0), raw.mono_ns, {}};
    const std::vector<TickValue>& values = raw.values;
    for (const TickValue& v : values) {
      const Series& s = data.table[v.series];
      if (s.metric == metrics::kEnergy) {
        EnergyTrack& t = counters[v.series];
        if (t.wall_ns.empty()) {
          t.device = s.device;
          t.domain = s.detail;
          t.wall_ns.push_back(tick.wall_ns);
          t.joules.push_back(0);
          t.counter_values.push_back(v.value);
        } else {
          t.counter_values.push_back(v.value);
          const double before = last_value[v.series];
          const double delta = v.value >= before ? v.value - before : v.value;
          t.wall_ns.push_back(tick.wall_ns);
          t.joules.push_back(t.joules.back() + delta);
        }
        last_value[v.series] = v.value;
      } else if (s.metric == metrics::kPower) {
        EnergyTrack& t = powers[v.series];
        if (t.wall_ns.empty()) {
          t.device = s.device;
          t.domain = s.detail;
          t.from_counter = false;
          t.wall_ns.push_back(tick.wall_ns);
          t.joules.push_back(0);
          trailing[v.series] = {0};
        } else {
          const double seconds = static_cast<double>(tick.wall_ns - last_ns[v.series]) / 1e9;
          t.wall_ns.push_back(tick.wall_ns);
          t.joules.push_back(t.joules.back() + last_power[v.series] * std::max(0.0, seconds));
          // The same readings counted over the interval each one ended, for the counter check.
          std::vector<double>& curve = trailing[v.series];
          curve.push_back(curve.back() + v.value * std::max(0.0, seconds));
        }
        last_power[v.series] = v.value;
        last_ns[v.series] = tick.wall_ns;
      }
    }
  }
  std::vector<EnergyTrack> tracks;
  std::set<std::pair<std::string, std::string>> have;
  for (auto& entry : counters) {
    EnergyTrack& track = entry.second;
    // The counter against ∫ power dt of the same domain over the same samples.
    auto power = std::find_if(powers.begin(), powers.end(), [&track](const auto& candidate) {
      return candidate.second.device == track.device && candidate.second.domain == track.domain;
    });
    if (power != powers.end() && power->second.wall_ns.size() >= 2 && track.wall_ns.size() >= 2) {
      int64_t resets = 0;
      for (size_t i = 1; i < track.counter_values.size(); ++i) {
        resets += track.counter_values[i] < track.counter_values[i - 1];
      }
      const double seconds =
          static_cast<double>(track.wall_ns.back() - track.wall_ns.front()) / 1e9;
      std::vector<double>& power_joules = trailing[power->first];
      const EnergyCheck check =
          CheckEnergyCounter(track.joules.back(), resets, power_joules.back(), seconds);
      if (check.use_power) {
        EnergyTrack replacement = std::move(power->second);
        replacement.joules = std::move(power_joules);
        replacement.counter_problem = check.problem;
        powers.erase(power);
        have.insert({replacement.device, replacement.domain});
        tracks.push_back(std::move(replacement));
        continue;
      }
    }
    track.counter_values.clear();
    have.insert({track.device, track.domain});
    tracks.push_back(std::move(track));
  }
  for (auto& [index, track] : powers) {
    if (!have.contains({track.device, track.domain})) tracks.push_back(std::move(track));
  }
  for (EnergyTrack& t : tracks) {
    std::vector<double> steps;
    for (size_t i = 1; i < t.wall_ns.size(); ++i) {
      steps.push_back(static_cast<double>(t.wall_ns[i] - t.wall_ns[i - 1]) / 1e9);
    }
    if (!steps.empty()) {
      std::nth_element(steps.begin(), steps.begin() + steps.size() / 2, steps.end());
      t.resolution_s = steps[steps.size() / 2];
    }
  }
  return tracks;
}

WindowEnergy EnergyInWindow(const EnergyTrack& track, int64_t begin_ns, int64_t end_ns) {
  WindowEnergy out;
  if (end_ns <= begin_ns || track.wall_ns.size() < 2) return out;
  // First interval that ends after begin.
  auto it = std::upper_bound(track.wall_ns.begin(), track.wall_ns.end(), begin_ns);
  size_t i = it == track.wall_ns.begin() ? 1 : static_cast<size_t>(it - track.wall_ns.begin());
  for (; i < track.wall_ns.size(); ++i) {
    const int64_t a = track.wall_ns[i - 1], b = track.wall_ns[i];
    if (a >= end_ns) break;
    if (b <= a) continue;
    const int64_t lo = std::max(a, begin_ns), hi = std::min(b, end_ns);
    if (hi <= lo) continue;
    const double share = static_cast<double>(hi - lo) / static_cast<double>(b - a);
    out.joules += (track.joules[i] - track.joules[i - 1]) * share;
    out.covered_s += static_cast<double>(hi - lo) / 1e9;
  }
  return out;
}

std::vector<bool> TopLevelTracks(const std::vector<EnergyTrack>& tracks) {
  std::set<std::string> with_psys;
  for (const EnergyTrack& t : tracks) {
    if (t.domain.starts_with("psys")) with_psys.insert(t.device);
  }
  std::vector<bool> top;
  for (const EnergyTrack& t : tracks) {
    // RAPL core/uncore lie inside the package; the BMC's reading covers the whole node (CPUs and
    // accelerators included), so adding it to the others would count them twice.
    const bool sub =
        t.domain.starts_with("core") || t.domain.starts_with("uncore") || t.device == "bmc";
    const bool psys = t.domain.starts_with("psys");
    top.push_back(!sub && (with_psys.contains(t.device) ? psys : true));
  }
  return top;
}

}  // namespace xpuperf::record
