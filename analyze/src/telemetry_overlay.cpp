#include "telemetry_overlay.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "xpuperf/core/output_file.h"
#include "xpuperf/record/timeline_files.h"
#include "xpuperf/record/timeline_reader.h"
#include "xpuperf/trace/analyses.h"
#include "xpuperf/trace/reader.h"

namespace xpuperf::analyze {
namespace {

using nlohmann::json;
using record::EnergyTrack;

constexpr double kNsPerSecond = 1e9;
// Pids of the telemetry processes in the merged trace, far from any real pid.
constexpr int64_t kTelemetryPidBase = 2'000'000'000;

bool IsHost(const EnergyTrack& t) { return t.device.starts_with("cpu"); }

struct Energy {
  double host = 0, accelerator = 0, covered_share = 1;
  double total() const { return host + accelerator; }
};

class Integrator {
 public:
  explicit Integrator(std::vector<EnergyTrack> tracks) : tracks_(std::move(tracks)) {
    top_ = record::TopLevelTracks(tracks_);
    for (size_t i = 0; i < tracks_.size(); ++i) {
      if (top_[i]) resolution_s_ = std::max(resolution_s_, tracks_[i].resolution_s);
    }
  }
  // Energy of the top-level domains in [begin, end) (wall ns).
  Energy In(int64_t begin, int64_t end) const {
    Energy e;
    double covered = 0, wanted = 0;
    for (size_t i = 0; i < tracks_.size(); ++i) {
      if (!top_[i]) continue;
      record::WindowEnergy w = record::EnergyInWindow(tracks_[i], begin, end);
      (IsHost(tracks_[i]) ? e.host : e.accelerator) += w.joules;
      covered += w.covered_s;
      wanted += static_cast<double>(end - begin) / kNsPerSecond;
    }
    e.covered_share = wanted > 0 ? covered / wanted : 0;
    return e;
  }
  // Energy over a union of intervals.
  Energy Over(const std::vector<trace::Interval>& merged) const {
    Energy sum;
    double covered = 0, wanted = 0;
    for (const trace::Interval& iv : merged) {
      Energy e = In(iv.begin, iv.end);
      sum.host += e.host;
      sum.accelerator += e.accelerator;
      covered += e.covered_share * static_cast<double>(iv.end - iv.begin);
      wanted += static_cast<double>(iv.end - iv.begin);
    }
    sum.covered_share = wanted > 0 ? covered / wanted : 0;
    return sum;
  }
  bool empty() const {
    return std::none_of(top_.begin(), top_.end(), [](bool b) { return b; });
  }
  double resolution_s() const { return resolution_s_; }
  const std::vector<EnergyTrack>& tracks() const { return tracks_; }
  const std::vector<bool>& top() const { return top_; }

 private:
  std::vector<EnergyTrack> tracks_;
  std::vector<bool> top_;
  double resolution_s_ = 0;
};

json EnergyJson(const Energy& e, double seconds) {
  return {{"joules", e.total()},
          {"host_joules", e.host},
          {"accelerator_joules", e.accelerator},
          {"average_watts", seconds > 0 ? json(e.total() / seconds) : json(nullptr)},
          {"telemetry_coverage", e.covered_share}};
}

Status WriteMergedTrace(const TelemetryOverlayOptions& options, const record::TimelineData& data,
                        int64_t trace_zero_wall_ns) {
  Result<std::string> text = trace::ReadMaybeGzipFile(options.trace_path);
  if (!text.ok()) return text.error();
  json doc = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return MakeError(ErrorCode::kParse, options.trace_path + ": not one JSON document");
  }
  json* events = nullptr;
  if (doc.is_array()) {
    events = &doc;
  } else if (doc.is_object() && doc.contains("traceEvents") && doc["traceEvents"].is_array()) {
    events = &doc["traceEvents"];
  } else {
    return MakeError(ErrorCode::kParse, options.trace_path + ": no traceEvents array");
  }
  std::map<std::string, int64_t> pids;
  for (const record::Series& s : data.table.all()) {
    if (pids.contains(s.device)) continue;
    const int64_t pid = kTelemetryPidBase + static_cast<int64_t>(pids.size());
    pids[s.device] = pid;
    events->push_back({{"ph", "M"},
                       {"name", "process_name"},
                       {"pid", pid},
                       {"tid", 0},
                       {"args", {{"name", "telemetry " + s.device}}}});
  }
  for (const record::Tick& tick : data.ticks) {
    std::map<std::pair<std::string, std::string>, json> counters;
    for (const record::TickValue& v : tick.values) {
      const record::Series& s = data.table[v.series];
      if (s.labels.Has("core")) continue;
      const std::string name = s.metric + (s.unit.empty() ? "" : " (" + s.unit + ")");
      counters[{s.device, name}][s.detail.empty() ? "value" : s.detail] = v.value;
    }
    // Trace time: µs since the trace's own zero (baseTimeNanoseconds, or the epoch).
    const double ts_us = static_cast<double>(tick.wall_ns - trace_zero_wall_ns) / 1e3;
    for (auto& [key, args] : counters) {
      events->push_back({{"ph", "C"},
                         {"name", key.second},
                         {"pid", pids[key.first]},
                         {"tid", 0},
                         {"ts", ts_us},
                         {"args", std::move(args)}});
    }
  }
  return WriteOutputFile(options.merged_trace, doc.dump() + "\n");
}

// The trace's clock on the wall clock: Kineto writes ts relative to baseTimeNanoseconds (a
// wall-clock instant); older traces write epoch microseconds and no base.
struct TraceClock {
  int64_t zero_wall_ns = 0;
  int64_t first_ts = 0, last_end = 0;  // trace ns
  int64_t Wall(int64_t ts_ns) const { return zero_wall_ns + ts_ns; }
  int64_t WallBegin() const { return Wall(first_ts); }
  int64_t WallEnd() const { return Wall(last_end); }
};

TraceClock ClockOf(const trace::Trace& trace, double offset_s) {
  TraceClock clock;
  clock.zero_wall_ns =
      trace.base_time_ns + static_cast<int64_t>(std::llround(offset_s * kNsPerSecond));
  if (!trace.events.empty()) {
    clock.first_ts = trace.events.front().ts_ns;
    for (const trace::TraceEvent& e : trace.events)
      clock.last_end = std::max(clock.last_end, e.end_ns());
  }
  return clock;
}

json AlignmentJson(const trace::Trace& trace, const TraceClock& clock, double offset_s,
                   int64_t tel_begin, int64_t tel_end) {
  const double overlap_ns = static_cast<double>(std::min(clock.WallEnd(), tel_end) -
                                                std::max(clock.WallBegin(), tel_begin));
  return {
      {"method", "wall clock"},
      {"trace_time_base", trace.base_time_ns != 0
                              ? "baseTimeNanoseconds + ts (Kineto)"
                              : "ts as microseconds since the Unix epoch (no baseTimeNanoseconds)"},
      {"trace_base_time_ns", trace.base_time_ns},
      {"user_offset_seconds", offset_s},
      {"trace_start_wall_ns", clock.WallBegin()},
      {"trace_end_wall_ns", clock.WallEnd()},
      {"telemetry_start_wall_ns", tel_begin},
      {"telemetry_end_wall_ns", tel_end},
      {"trace_starts_after_telemetry_seconds",
       static_cast<double>(clock.WallBegin() - tel_begin) / kNsPerSecond},
      {"overlap_seconds", std::max<double>(0, overlap_ns / kNsPerSecond)}};
}

json EnergyTracksJson(const Integrator& energy) {
  json tracks = json::array();
  for (size_t i = 0; i < energy.tracks().size(); ++i) {
    const EnergyTrack& t = energy.tracks()[i];
    tracks.push_back(
        {{"device", t.device},
         {"domain", t.domain},
         {"source", !t.counter_problem.empty()
                        ? "power samples held (the energy counter " + t.counter_problem + ")"
                    : t.from_counter ? std::string("energy counter")
                                     : std::string("power samples held")},
         {"resolution_seconds", t.resolution_s},
         {"in_total", static_cast<bool>(energy.top()[i])}});
  }
  return tracks;
}

// Per ProfilerStep#N: "steps", and "joules_per_step" over the fully covered ones.
void AddStepEnergy(const trace::Trace& trace, const TraceClock& clock, const Integrator& energy,
                   int64_t tel_begin, json& out) {
  json steps = json::array();
  std::vector<double> per_step;
  for (const trace::IterationStat& step : trace::ComputeIterationBreakdown(trace).steps) {
    const int64_t begin = clock.Wall(step.start_ns);
    const int64_t end = clock.Wall(step.start_ns + step.duration_ns);
    const double seconds = static_cast<double>(step.duration_ns) / kNsPerSecond;
    Energy e = energy.In(begin, end);
    json row = EnergyJson(e, seconds);
    row["step"] = step.step;
    row["start_seconds"] = static_cast<double>(begin - tel_begin) / kNsPerSecond;
    row["duration_seconds"] = seconds;
    row["below_resolution"] = seconds < energy.resolution_s();
    steps.push_back(std::move(row));
    if (e.covered_share > 0.99) per_step.push_back(e.total());
  }
  out["steps"] = steps;
  if (per_step.empty()) return;
  std::vector<double> sorted = per_step;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double j : per_step) sum += j;
  out["joules_per_step"] = {{"mean", sum / static_cast<double>(per_step.size())},
                            {"median", sorted[sorted.size() / 2]},
                            {"steps", per_step.size()}};
}

// GPU idle inside the trace window: the complement of every GPU op.
std::vector<trace::Interval> GpuIdle(std::vector<trace::Interval> any_gpu,
                                     const TraceClock& clock) {
  trace::MergeIntervals(any_gpu);
  std::vector<trace::Interval> idle;
  int64_t cursor = clock.WallBegin();
  for (const trace::Interval& iv : any_gpu) {
    if (iv.begin > cursor) idle.push_back({cursor, iv.begin});
    cursor = std::max(cursor, iv.end);
  }
  if (clock.WallEnd() > cursor) idle.push_back({cursor, clock.WallEnd()});
  return idle;
}

// Per op class: GPU kernels by HTA's classes, else host CPU ops; each class's energy is that of
// the union of its ops' intervals (classes overlap, so they do not add up), and the GPU's idle.
json OpClassEnergy(const trace::Trace& trace, const TraceClock& clock, const Integrator& energy) {
  std::map<std::string, std::vector<trace::Interval>> classes;
  for (const trace::TraceEvent& e : trace.events) {
    if (e.dur_ns <= 0) continue;
    const trace::Interval interval{clock.Wall(e.ts_ns), clock.Wall(e.end_ns())};
    if (trace::IsGpuOp(e.kind)) {
      classes[std::string(trace::KernelClassName(trace::ClassifyKernel(trace.Name(e), e.kind)))]
          .push_back(interval);
    } else if (e.kind == trace::EventKind::kCpuOp) {
      classes["host_op"].push_back(interval);
    }
  }
  json op_classes = json::array();
  std::vector<trace::Interval> any_gpu;
  for (auto& [name, intervals] : classes) {
    const int64_t busy_ns = trace::MergeIntervals(intervals);
    if (name != "host_op") any_gpu.insert(any_gpu.end(), intervals.begin(), intervals.end());
    const double seconds = static_cast<double>(busy_ns) / kNsPerSecond;
    json row = EnergyJson(energy.Over(intervals), seconds);
    row["class"] = name;
    row["busy_seconds"] = seconds;
    op_classes.push_back(std::move(row));
  }
  if (!any_gpu.empty()) {
    std::vector<trace::Interval> idle = GpuIdle(std::move(any_gpu), clock);
    const double idle_s = static_cast<double>(trace::MergeIntervals(idle)) / kNsPerSecond;
    json row = EnergyJson(energy.Over(idle), idle_s);
    row["class"] = "gpu_idle";
    row["busy_seconds"] = idle_s;
    op_classes.push_back(std::move(row));
  }
  return op_classes;
}

// J per FLOP over the trace window, from the GEMMs whose FLOPs the trace records (shapes):
// "trace_window" and "gemm".
void AddGemmEnergy(const trace::Trace& trace, const TraceClock& clock, const Integrator& energy,
                   json& out) {
  double flops = 0;
  for (const trace::GemmPoint& g : trace::ComputeGemmPoints(trace)) {
    flops += g.flops * static_cast<double>(g.calls);
  }
  Energy window = energy.In(clock.WallBegin(), clock.WallEnd());
  const double window_s = static_cast<double>(clock.last_end - clock.first_ts) / kNsPerSecond;
  out["trace_window"] = EnergyJson(window, window_s);
  out["trace_window"]["seconds"] = window_s;
  if (flops > 0 && window.total() > 0) {
    out["gemm"] = {{"flops", flops},
                   {"joules", window.total()},
                   {"joules_per_flop", window.total() / flops},
                   {"gflop_per_joule", flops / 1e9 / window.total()},
                   {"note",
                    "GEMM FLOPs only (2·M·N·K per call from Input Dims); the energy is "
                    "all of the trace window's, so other work counts against them"}};
  } else {
    out["gemm"] = {{"unavailable", flops > 0 ? "no energy inside the trace window"
                                             : "the trace records no GEMM shapes (profile with "
                                               "record_shapes=True)"}};
  }
}

}  // namespace

Result<json> AnalyzeTelemetry(const trace::TraceRun& run, const TelemetryOverlayOptions& options) {
  XPUPERF_ASSIGN_OR_RETURN(record::TimelineData data, record::ReadTimeline(options.dir));
  if (run.ranks.empty()) return MakeError(ErrorCode::kInvalidArgument, "no trace to align with");
  const trace::Trace& trace = run.ranks.front();
  const TraceClock clock = ClockOf(trace, options.offset_s);
  Integrator energy(record::EnergyTracks(data));
  const int64_t tel_begin = data.ticks.empty() ? data.start_wall_ns : data.ticks.front().wall_ns;
  const int64_t tel_end = data.ticks.empty() ? data.start_wall_ns : data.ticks.back().wall_ns;

  json out;
  out["telemetry"] = options.dir;
  out["rank"] = trace.rank;
  out["dropped_partial_line"] = data.dropped_partial_line;
  out["alignment"] = AlignmentJson(trace, clock, options.offset_s, tel_begin, tel_end);
  out["energy_tracks"] = EnergyTracksJson(energy);
  out["telemetry_resolution_seconds"] = energy.resolution_s();
  // The merged trace needs no energy source: the counter tracks are whatever was recorded.
  out["merged_trace"] = nullptr;
  if (!options.merged_trace.empty()) {
    if (options.trace_path.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "--merged-trace needs a single trace file, not a directory of ranks");
    }
    XPUPERF_RETURN_IF_ERROR(WriteMergedTrace(options, data, clock.zero_wall_ns));
    out["merged_trace"] = options.merged_trace;
  }
  if (energy.empty()) {
    out["unavailable"] =
        "the recording has no energy counter or power samples (see its "
        "summary.json 'unavailable')";
    return out;
  }
  AddStepEnergy(trace, clock, energy, tel_begin, out);
  out["op_classes"] = OpClassEnergy(trace, clock, energy);
  AddGemmEnergy(trace, clock, energy, out);
  return out;
}

std::string RenderTelemetryText(const json& t) {
  std::string out = "\nTelemetry over the trace (" + t["telemetry"].get<std::string>() + ")\n";
  const json& a = t["alignment"];
  out += fmt::format(
      "  alignment: wall clock, {}; base {} ns; offset {:+.3f} s; the trace starts "
      "{:+.3f} s after the recording; overlap {:.3f} s\n",
      a["trace_time_base"].get<std::string>(), a["trace_base_time_ns"].get<int64_t>(),
      a["user_offset_seconds"].get<double>(),
      a["trace_starts_after_telemetry_seconds"].get<double>(), a["overlap_seconds"].get<double>());
  if (t.value("dropped_partial_line", false)) {
    out +=
        "  note: the timeline ended inside a line (recorder killed); read up to its last flush\n";
  }
  if (t.contains("unavailable")) {
    out += "  " + t["unavailable"].get<std::string>() + "\n";
    if (!t["merged_trace"].is_null()) {
      out += "  merged trace: " + t["merged_trace"].get<std::string>() + "\n";
    }
    return out;
  }
  out += fmt::format(
      "  telemetry resolution: {:.3g} s (steps shorter than that are apportioned "
      "from the interval's average power)\n",
      t["telemetry_resolution_seconds"].get<double>());
  if (!t["steps"].empty()) {
    out += fmt::format("\n  {:>8} {:>10} {:>12} {:>10} {:>10} {:>9}\n", "STEP", "seconds", "joules",
                       "avg W", "host J", "coverage");
    for (const json& s : t["steps"]) {
      out += fmt::format(
          "  {:>8} {:>10.4f} {:>12.3f} {:>10} {:>10.3f} {:>8.0f}%{}\n", s["step"].get<int64_t>(),
          s["duration_seconds"].get<double>(), s["joules"].get<double>(),
          s["average_watts"].is_null() ? std::string("-")
                                       : fmt::format("{:.2f}", s["average_watts"].get<double>()),
          s["host_joules"].get<double>(), 100 * s["telemetry_coverage"].get<double>(),
          s["below_resolution"].get<bool>() ? "  (below resolution)" : "");
    }
  } else {
    out += "  no ProfilerStep#N ranges in the trace\n";
  }
  if (t.contains("joules_per_step")) {
    out += fmt::format("  J/step: mean {:.3f}, median {:.3f} over {} fully covered steps\n",
                       t["joules_per_step"]["mean"].get<double>(),
                       t["joules_per_step"]["median"].get<double>(),
                       t["joules_per_step"]["steps"].get<int64_t>());
  }
  if (!t["op_classes"].empty()) {
    out +=
        fmt::format("\n  {:<10} {:>12} {:>12} {:>10}\n", "OP CLASS", "busy s", "joules", "avg W");
    for (const json& c : t["op_classes"]) {
      out += fmt::format("  {:<10} {:>12.4f} {:>12.3f} {:>10}\n", c["class"].get<std::string>(),
                         c["busy_seconds"].get<double>(), c["joules"].get<double>(),
                         c["average_watts"].is_null()
                             ? std::string("-")
                             : fmt::format("{:.2f}", c["average_watts"].get<double>()));
    }
    out += "  (classes overlap in time, so their joules do not add up)\n";
  }
  const json& g = t["gemm"];
  if (g.contains("joules_per_flop")) {
    out += fmt::format("  GEMM: {:.3g} FLOP, {:.3g} J/FLOP ({:.3g} GFLOP/J)\n",
                       g["flops"].get<double>(), g["joules_per_flop"].get<double>(),
                       g["gflop_per_joule"].get<double>());
  } else {
    out += "  J/FLOP: " + g["unavailable"].get<std::string>() + "\n";
  }
  if (!t["merged_trace"].is_null()) {
    out += "  merged trace: " + t["merged_trace"].get<std::string>() + "\n";
  }
  return out;
}

}  // namespace xpuperf::analyze
