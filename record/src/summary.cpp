#include "xpuperf/record/summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>

#include "xpuperf/core/energy_check.h"
#include "xpuperf/core/json.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/version.h"

namespace xpuperf::record {
namespace {

using nlohmann::json;
constexpr double kNsPerSecond = 1e9;
constexpr double kMiB = 1024.0 * 1024.0;

double SeriesSeconds(const SeriesStats& s) {
  return static_cast<double>(s.last_ns - s.first_ns) / kNsPerSecond;
}

double Percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double rank = q * static_cast<double>(values.size() - 1);
  const auto low = static_cast<size_t>(std::floor(rank));
  const size_t high = std::min(low + 1, values.size() - 1);
  return values[low] + (values[high] - values[low]) * (rank - static_cast<double>(low));
}

// The power series of the same device and domain as an energy counter, with two samples or more.
const SeriesStats* PowerOf(const SummaryInput& in, const Series& counter) {
  const SeriesTable& table = *in.table;
  for (uint32_t i = 0; i < table.size() && i < in.stats->series_count(); ++i) {
    const Series& s = table[i];
    if (s.metric == metrics::kPower && s.device == counter.device && s.detail == counter.detail &&
        in.stats->stats(i).count >= 2) {
      return &in.stats->stats(i);
    }
  }
  return nullptr;
}

// The method column of the text summary.
std::string EnergyMethodWord(const json& e) {
  if (e.contains("counter_problem") && e["counter_problem"].is_string()) {
    return "∫ power (counter " + e["counter_problem"].get<std::string>() + ")";
  }
  if (e["counter_resets"].get<int64_t>() > 0) return "counter (restarted, checked)";
  return e["method"].get<std::string>().starts_with("energy") ? "counter" : "∫ power";
}

json Energy(const SummaryInput& in) {
  json out = json::array();
  const SeriesTable& table = *in.table;
  std::vector<std::string> with_counter;
  for (uint32_t i = 0; i < table.size() && i < in.stats->series_count(); ++i) {
    const Series& s = table[i];
    const SeriesStats& st = in.stats->stats(i);
    if (s.metric != metrics::kEnergy || st.count == 0) continue;
    const double seconds = SeriesSeconds(st);
    with_counter.push_back(s.device + "|" + s.detail);
    // Every counter is checked against ∫ power dt of the same domain where there is one.
    const SeriesStats* power = PowerOf(in, s);
    const EnergyCheck check =
        power != nullptr
            ? CheckEnergyCounter(st.increase, st.resets, power->trailing_integral, seconds)
            : EnergyCheck{};
    const double joules = check.use_power ? power->trailing_integral : st.increase;
    std::string method = "energy counter: Σ increases between samples (wraps corrected)";
    if (check.use_power) {
      method =
          "∫ power dt, each power reading counted over the interval it ended: the energy "
          "counter " +
          check.problem;
    } else if (!check.agreement.empty()) {
      method += "; " + check.agreement;
    } else if (power == nullptr) {
      method += "; not cross-checked (no power readings of this domain)";
    }
    out.push_back({{"device", s.device},
                   {"domain", s.detail},
                   {"joules", joules},
                   {"average_watts", seconds > 0 ? json(joules / seconds) : json(nullptr)},
                   {"seconds", seconds},
                   {"samples", st.count},
                   {"counter_resets", st.resets},
                   {"counter_joules", st.increase},
                   {"source", check.use_power ? "power integral" : "energy counter"},
                   {"counter_problem", check.use_power ? json(check.problem) : json(nullptr)},
                   {"method", method}});
  }
  // Domains with power but no energy counter: ∫ power dt, each sample held until the next.
  for (uint32_t i = 0; i < table.size() && i < in.stats->series_count(); ++i) {
    const Series& s = table[i];
    const SeriesStats& st = in.stats->stats(i);
    if (s.metric != metrics::kPower || st.count < 2) continue;
    if (std::find(with_counter.begin(), with_counter.end(), s.device + "|" + s.detail) !=
        with_counter.end())
      continue;
    std::string method =
        "no energy counter: ∫ power dt, each power sample held until the next (as accurate as "
        "the source's averaging)";
    if (s.device == "bmc" && in.bmc.is_object() && in.bmc.contains("poll_period_seconds")) {
      method = fmt::format(
          "BMC power read every {:g} s or more: ∫ power dt, each reading held until the next "
          "(the whole node: overlaps every other domain)",
          in.bmc["poll_period_seconds"].get<double>());
    }
    out.push_back({{"device", s.device},
                   {"domain", s.detail},
                   {"joules", st.held_integral},
                   {"average_watts",
                    st.held_seconds > 0 ? json(st.held_integral / st.held_seconds) : json(nullptr)},
                   {"seconds", st.held_seconds},
                   {"samples", st.count},
                   {"counter_resets", 0},
                   {"counter_joules", nullptr},
                   {"source", "power integral"},
                   {"counter_problem", nullptr},
                   {"method", method}});
  }
  return out;
}

json PerSeries(const SummaryInput& in, std::string_view metric, bool overall_only,
               const std::function<json(const Series&, const SeriesStats&, uint32_t)>& make) {
  json out = json::array();
  for (uint32_t i = 0; i < in.table->size() && i < in.stats->series_count(); ++i) {
    const Series& s = (*in.table)[i];
    const SeriesStats& st = in.stats->stats(i);
    if (s.metric != metric || st.count == 0) continue;
    if (overall_only && !s.labels.empty()) continue;
    json row = make(s, st, i);
    if (!row.is_null()) out.push_back(std::move(row));
  }
  return out;
}

json JobExitJson(const std::optional<JobExit>& exit) {
  if (!exit) return nullptr;
  if (exit->signaled) return {{"signal", exit->signal}};
  return {{"code", exit->code}};
}

}  // namespace

json BuildSummary(const SummaryInput& in) {
  const TimelineAccumulator& acc = *in.stats;
  json doc;
  doc["json_schema_version"] = kJsonSchemaVersion;
  doc["xpuperf_version"] = kVersion;
  doc["partial"] = in.partial;
  doc["command"] = in.command;
  doc["pid"] = in.pid > 0 ? json(in.pid) : json(nullptr);
  doc["exit"] = JobExitJson(in.exit);
  doc["start_wall_ns"] = acc.first_wall_ns();
  doc["end_wall_ns"] = acc.last_wall_ns();
  doc["duration_seconds"] = acc.duration_s();
  doc["rate_hz"] = in.rate_hz;
  doc["ticks"] = acc.ticks();
  json sources = json::array();
  for (const MetricSchedule& m : RecordSchedule()) {
    sources.push_back({{"metric", m.metric},
                       {"sampled_every_seconds", std::max(m.min_period_s, 1.0 / in.rate_hz)},
                       {"source_update_period", m.source_update}});
  }
  doc["sources"] = sources;
  doc["energy"] = Energy(in);
  doc["power"] = PerSeries(
      in, metrics::kPower, false, [](const Series& s, const SeriesStats& st, uint32_t) -> json {
        return {{"device", s.device},
                {"domain", s.detail},
                {"mean_watts", st.held_seconds > 0 ? st.held_integral / st.held_seconds
                                                   : st.sum / static_cast<double>(st.count)},
                {"peak_watts", st.max},
                {"samples", st.count}};
      });
  doc["duty_cycle"] = PerSeries(in, metrics::kDutyCycle, true,
                                [&](const Series& s, const SeriesStats& st, uint32_t i) -> json {
                                  std::vector<double> v;
                                  for (const Point& p : acc.points(i)) v.push_back(p.value);
                                  if (v.empty()) return nullptr;
                                  return {{"device", s.device},
                                          {"mean_percent", st.sum / static_cast<double>(st.count)},
                                          {"p50_percent", Percentile(v, 0.5)},
                                          {"p95_percent", Percentile(v, 0.95)},
                                          {"samples", st.count}};
                                });
  doc["memory"] = PerSeries(in, metrics::kMemoryUsed, true,
                            [&](const Series& s, const SeriesStats& st, uint32_t) -> json {
                              json row = {{"device", s.device}, {"peak_used_bytes", st.max}};
                              auto cap = in.capacity_bytes.find(s.device);
                              if (cap != in.capacity_bytes.end() && cap->second > 0) {
                                row["capacity_bytes"] = cap->second;
                                row["peak_share"] = st.max / static_cast<double>(cap->second);
                              }
                              return row;
                            });
  doc["job_memory"] = PerSeries(
      in, kJobMemory, true, [&](const Series& s, const SeriesStats& st, uint32_t) -> json {
        return {{"device", s.device},
                {"peak_bytes", st.max},
                {"what", s.device.starts_with("cpu") ? "Σ RSS of the job's process tree"
                                                     : "device memory held by the tree's pids"}};
      });
  doc["job_peak_processes"] = in.peak_job_processes;
  doc["temperature"] =
      PerSeries(in, metrics::kTemperature, false,
                [](const Series& s, const SeriesStats& st, uint32_t) -> json {
                  return {{"device", s.device}, {"sensor", s.detail}, {"peak_celsius", st.max}};
                });
  const double duration = acc.duration_s();
  doc["clock_events"] =
      PerSeries(in, metrics::kClockEventActive, false,
                [&](const Series& s, const SeriesStats& st, uint32_t) -> json {
                  return {{"device", s.device},
                          {"reason", s.detail},
                          {"seconds", st.held_integral},
                          {"share", duration > 0 ? st.held_integral / duration : 0.0},
                          {"method", "each sample held until the next one of its series"}};
                });
  doc["errors_increased"] = PerSeries(
      in, metrics::kErrors, false, [](const Series& s, const SeriesStats& st, uint32_t) -> json {
        if (st.increase <= 0) return nullptr;
        return {{"device", s.device}, {"type", s.detail}, {"increase", st.increase}};
      });
  json unavailable = json::array();
  for (const Unavailable& u : in.unavailable) {
    unavailable.push_back({{"metric", u.metric}, {"device", u.device}, {"reason", u.reason}});
  }
  doc["unavailable"] = unavailable;
  if (!in.bmc.is_null()) doc["bmc"] = in.bmc;
  PatternContext patterns{in.table, in.stats, in.capacity_bytes};
  json findings = json::array();
  for (const Finding& f : DetectPatterns(patterns)) {
    findings.push_back({{"rule", f.rule},
                        {"title", f.title},
                        {"severity", f.severity},
                        {"device", f.device},
                        {"value", f.value},
                        {"threshold", f.threshold},
                        {"unit", f.unit},
                        {"start_seconds", f.start_s >= 0 ? json(f.start_s) : json(nullptr)},
                        {"end_seconds", f.end_s >= 0 ? json(f.end_s) : json(nullptr)},
                        {"evidence", f.evidence},
                        {"advice", f.advice}});
  }
  doc["findings"] = findings;
  if (in.recorder_cpu_seconds >= 0 && in.recorder_wall_seconds > 0) {
    doc["recorder"] = {
        {"polls", in.polls},
        {"achieved_poll_rate_hz", static_cast<double>(in.polls) / in.recorder_wall_seconds},
        {"cpu_seconds", in.recorder_cpu_seconds},
        {"wall_seconds", in.recorder_wall_seconds},
        {"cpu_percent_of_one_core", 100 * in.recorder_cpu_seconds / in.recorder_wall_seconds},
        {"method",
         "getrusage(RUSAGE_SELF) user + system time of xpuperf over the "
         "recording's wall time (the job's time is not included)"}};
  }
  return doc;
}

namespace {

std::string Bytes(double bytes) {
  if (bytes >= 1024 * kMiB) return fmt::format("{:.2f} GiB", bytes / (1024 * kMiB));
  return fmt::format("{:.1f} MiB", bytes / kMiB);
}

}  // namespace

std::string RenderSummaryText(const json& doc) {
  std::string out;
  const json& exit = doc["exit"];
  out += fmt::format("xpuperf record: {:.2f} s, {} samples at {:g} Hz",
                     doc.value("duration_seconds", 0.0), doc.value("ticks", 0),
                     doc.value("rate_hz", 0.0));
  if (exit.is_object() && exit.contains("code"))
    out += fmt::format(", job exited {}", exit["code"].get<int>());
  if (exit.is_object() && exit.contains("signal"))
    out += fmt::format(", job killed by signal {}", exit["signal"].get<int>());
  out += "\n";
  if (!doc["energy"].empty()) {
    out += fmt::format("\n{:<10} {:<20} {:>12} {:>10}  {}\n", "ENERGY", "domain", "joules", "avg W",
                       "method");
    for (const json& e : doc["energy"]) {
      out += fmt::format("{:<10} {:<20} {:>12.3f} {:>10}  {}\n", e["device"].get<std::string>(),
                         e["domain"].get<std::string>(), e["joules"].get<double>(),
                         e["average_watts"].is_null()
                             ? std::string("-")
                             : fmt::format("{:.2f}", e["average_watts"].get<double>()),
                         EnergyMethodWord(e));
    }
  }
  if (!doc["power"].empty()) {
    out += fmt::format("\n{:<10} {:<20} {:>10} {:>10}\n", "POWER", "domain", "mean W", "peak W");
    for (const json& p : doc["power"]) {
      out += fmt::format("{:<10} {:<20} {:>10.2f} {:>10.2f}\n", p["device"].get<std::string>(),
                         p["domain"].get<std::string>(), p["mean_watts"].get<double>(),
                         p["peak_watts"].get<double>());
    }
  }
  if (!doc["duty_cycle"].empty()) {
    out += fmt::format("\n{:<10} {:>8} {:>8} {:>8}\n", "DUTY %", "mean", "p50", "p95");
    for (const json& d : doc["duty_cycle"]) {
      out += fmt::format("{:<10} {:>8.1f} {:>8.1f} {:>8.1f}\n", d["device"].get<std::string>(),
                         d["mean_percent"].get<double>(), d["p50_percent"].get<double>(),
                         d["p95_percent"].get<double>());
    }
  }
  if (!doc["memory"].empty() || !doc["job_memory"].empty()) {
    out += fmt::format("\n{:<10} {:>14} {:>14} {:>14}\n", "MEMORY", "peak used", "capacity",
                       "job peak");
    std::map<std::string, std::array<std::string, 3>> rows;
    for (const json& m : doc["memory"]) {
      auto& row = rows[m["device"].get<std::string>()];
      row[0] = Bytes(m["peak_used_bytes"].get<double>());
      if (m.contains("capacity_bytes")) row[1] = Bytes(m["capacity_bytes"].get<double>());
    }
    for (const json& m : doc["job_memory"]) {
      rows[m["device"].get<std::string>()][2] = Bytes(m["peak_bytes"].get<double>());
    }
    for (const auto& [device, row] : rows) {
      out += fmt::format("{:<10} {:>14} {:>14} {:>14}\n", device, row[0].empty() ? "-" : row[0],
                         row[1].empty() ? "-" : row[1], row[2].empty() ? "-" : row[2]);
    }
  }
  if (!doc["temperature"].empty()) {
    out += fmt::format("\n{:<10} {:<20} {:>8}\n", "TEMP", "sensor", "peak °C");
    for (const json& t : doc["temperature"]) {
      out += fmt::format("{:<10} {:<20} {:>8.1f}\n", t["device"].get<std::string>(),
                         t["sensor"].get<std::string>(), t["peak_celsius"].get<double>());
    }
  }
  bool clock_header = false;
  for (const json& c : doc["clock_events"]) {
    if (c["seconds"].get<double>() <= 0) continue;
    if (!clock_header) {
      out += fmt::format("\n{:<10} {:<28} {:>10} {:>8}\n", "CLOCKS", "held down by", "seconds",
                         "share");
      clock_header = true;
    }
    out += fmt::format("{:<10} {:<28} {:>10.2f} {:>7.1f}%\n", c["device"].get<std::string>(),
                       c["reason"].get<std::string>(), c["seconds"].get<double>(),
                       100 * c["share"].get<double>());
  }
  for (const json& e : doc["errors_increased"]) {
    out += fmt::format("\nERRORS     {} {} increased by {:g}\n", e["device"].get<std::string>(),
                       e["type"].get<std::string>(), e["increase"].get<double>());
  }
  if (!doc["unavailable"].empty()) {
    out += "\nNot measured here:\n";
    for (const json& u : doc["unavailable"]) {
      out += fmt::format("  {} on {}: {}\n", u["metric"].get<std::string>(),
                         u["device"].get<std::string>(), u["reason"].get<std::string>());
    }
  }
  if (doc.contains("recorder")) {
    out += fmt::format(
        "\nRecorder overhead: {:.3f} s CPU over {:.2f} s ({:.3f}% of one core); {} polls, "
        "{:.0f} Hz achieved\n",
        doc["recorder"]["cpu_seconds"].get<double>(), doc["recorder"]["wall_seconds"].get<double>(),
        doc["recorder"]["cpu_percent_of_one_core"].get<double>(),
        doc["recorder"]["polls"].get<int64_t>(),
        doc["recorder"]["achieved_poll_rate_hz"].get<double>());
  }
  if (!doc["findings"].empty()) {
    out += "\nFindings:\n";
    for (const json& f : doc["findings"]) {
      out += fmt::format("  [{}] {}\n    evidence: {}\n    advice: {}\n",
                         f["severity"].get<std::string>(), f["title"].get<std::string>(),
                         f["evidence"].get<std::string>(), f["advice"].get<std::string>());
    }
  }
  return out;
}

}  // namespace xpuperf::record
