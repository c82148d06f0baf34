// `xpuperf analyze`: read a trace (or a run directory, or a memory-timeline export), analyse it,
// print the summary and tables, JSON, and optionally an HTML report.
#include "xpuperf/analyze/analyze.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>

#include "telemetry_overlay.h"
#if XPUPERF_ANALYZE_PEAKS
#include "trace_peaks.h"
#endif
#include "xpuperf/core/exit_code.h"
#include "xpuperf/core/input_file.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/trace/chrome_export.h"
#include "xpuperf/trace/hta_convention.h"
#include "xpuperf/trace/reader.h"
#include "xpuperf/trace/xplane.h"

namespace xpuperf::analyze {
namespace {

int Fail(std::ostream& err, const Error& error) {
  err << "xpuperf analyze: error: " << error.message << "\n";
  return ExitCodeFor(error) == kExitUsage && error.code == ErrorCode::kNotFound ? kExitUsage
                                                                                : kExitFailure;
}

// A non-negative int from the environment, nullopt when unset or not a number in range.
std::optional<int> EnvironmentInt(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr) return std::nullopt;
  const std::string_view view(text);
  int value = 0;
  auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (ec != std::errc() || end != view.data() + view.size() || value < 0) return std::nullopt;
  return value;
}

// Everything about the options that can be judged before the trace is read, so that a bad option
// fails at once (docs/POLICIES.md): kInvalidArgument with the sentence to print.
Status CheckOptions(const AnalyzeOptions& options) {
  auto Usage = [](const std::string& message) {
    return MakeError(ErrorCode::kInvalidArgument, message);
  };
  if (options.path.empty()) {
    return Usage("a trace file or directory is required");
  }
  // A shift of more than a year between a trace and a recording of the same job is a mistake.
  if (!(std::abs(options.telemetry_offset_s) <= 366.0 * 24 * 3600)) {
    return Usage(
        fmt::format("--telemetry-offset must be a finite number of seconds within a year (got {})",
                    options.telemetry_offset_s));
  }
  if (options.top <= 0) {
    return Usage("--top must be positive");
  }
  if (options.convention != "xpuperf" && options.convention != "hta") {
    return Usage("unknown convention '" + options.convention + "' (known: xpuperf, hta)");
  }
  const auto& known = trace::AnalysisNames();
  for (const auto& name : options.analyses) {
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return Usage(fmt::format("unknown analysis '{}' (known: {})", name, list));
    }
  }
  if (options.include_last_profiler_step && options.convention != "hta") {
    return Usage("--include-last-profiler-step needs --convention hta");
  }
  if (options.convention != "hta" && std::find(options.analyses.begin(), options.analyses.end(),
                                               "hta") != options.analyses.end()) {
    return Usage("the hta analysis (HTA's own tables) needs --convention hta");
  }
  // The output paths are checked before the trace is read: a bad --html, --merged-trace or
  // --export-chrome fails at once, as a usage error (docs/POLICIES.md).
  for (const std::string* path : {&options.html, &options.merged_trace, &options.export_chrome}) {
    if (path->empty()) continue;
    if (Result<OutputTarget> target = PrepareOutput(*path); !target.ok()) {
      return Usage(target.error().message);
    }
    // Never over the only copy of what is being read (a trace, a rank of a directory, a
    // recording's timeline).
    std::vector<std::string> inputs = InputFilesAt(options.path, {".json", ".json.gz", ".pb"});
    for (std::string& file : InputFilesAt(options.telemetry, {".csv", ".json", ".jsonl"})) {
      inputs.push_back(std::move(file));
    }
    if (Status status = CheckOutputIsNotAnInput(*path, inputs); !status.ok()) {
      return Usage(status.error().message);
    }
  }
  if (!options.merged_trace.empty() && options.telemetry.empty()) {
    return Usage("--merged-trace needs --telemetry DIR");
  }
  return Status::Ok();
}

// A memory-timeline export (told by its first bytes): its summary as text or JSON.
int PrintMemoryTimeline(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  auto text = trace::TraceText::Load(options.path);
  if (!text.ok()) return Fail(err, text.error());
  auto summary = trace::ParseMemoryTimeline(text->view(), options.path);
  if (!summary.ok()) return Fail(err, summary.error());
  if (options.json) {
    nlohmann::json j = {{"json_schema_version", 1},    {"source", summary->source},
                        {"rows", summary->rows},       {"peak_bytes", summary->peak_bytes},
                        {"peak_ts", summary->peak_ts}, {"final_bytes", summary->final_bytes}};
    for (int c = 0; c < trace::kMemoryCategories; ++c) {
      std::string name(trace::MemoryCategoryName(c));
      j["at_peak_bytes"][name] = summary->at_peak[c];
      j["max_bytes"][name] = summary->max_by_category[c];
    }
    out << j.dump(2) << "\n";
  } else {
    out << RenderMemoryTimelineText(*summary);
  }
  if (!options.html.empty()) {
    err << "xpuperf analyze: note: no HTML report for a memory timeline (text and --json "
           "only)\n";
  }
  return kExitOk;
}

}  // namespace

std::optional<MpiLaunch> DetectMpiLaunch() {
  const std::pair<const char*, const char*> launchers[] = {
      {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
      {"PMI_RANK", "PMI_SIZE"},
      {"PMIX_RANK", nullptr},
  };
  for (const auto& [rank_name, size_name] : launchers) {
    const std::optional<int> rank = EnvironmentInt(rank_name);
    if (!rank) continue;
    const std::optional<int> size = size_name ? EnvironmentInt(size_name) : std::nullopt;
    if (size && *rank >= *size) continue;  // not a launcher's pair
    return MpiLaunch{*rank, size ? *size : -1};
  }
  return std::nullopt;
}

namespace {

// "xpuperf analyze: read 3 of 16 files (rank-2.json.gz), 1.2 of 4.8 GB, 12 s elapsed, about 36 s
// left": what is left from the bytes read so far and their time.
trace::ReadOptions ProgressOnErr(const AnalyzeOptions& options, std::ostream& err) {
  trace::ReadOptions read;
  const bool always = options.progress || isatty(STDERR_FILENO) != 0;
  const auto start = std::chrono::steady_clock::now();
  read.on_file_read = [&err, always, start](const trace::FileReadProgress& p) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!always && elapsed < 10) return;
    std::string line = fmt::format(
        "xpuperf analyze: read {} of {} files ({}), {:.2f} of {:.2f} GB, {:.0f} s elapsed", p.done,
        p.total, std::filesystem::path(*p.file).filename().string(),
        static_cast<double>(p.bytes_done) / 1e9, static_cast<double>(p.bytes_total) / 1e9, elapsed);
    if (p.done < p.total && p.bytes_done > 0) {
      const double left = elapsed * static_cast<double>(p.bytes_total - p.bytes_done) /
                          static_cast<double>(p.bytes_done);
      line += fmt::format(", about {:.0f} s left", left);
    }
    err << line << "\n" << std::flush;
  };
  return read;
}

}  // namespace

int RunAnalyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
  if (Status checked = CheckOptions(options); !checked.ok()) {
    err << "xpuperf analyze: error: " << checked.error().message << "\n";
    return kExitUsage;
  }
  std::error_code ec;
  if (!std::filesystem::exists(options.path, ec)) {
    // ELOOP, EACCES...: name the real cause, not "no such file".
    err << "xpuperf analyze: error: " << options.path << ": "
        << DescribeFileError(options.path, ec ? ec.value() : ENOENT) << "\n";
    return kExitUsage;
  }
  trace::TraceRun run;
  if (std::filesystem::is_directory(options.path, ec)) {
    auto read = options.read_directory
                    ? options.read_directory(options.path)
                    : trace::ReadTraceRun(options.path, ProgressOnErr(options, err));
    if (!read.ok()) return Fail(err, read.error());
    run = std::move(read).value();
  } else if (trace::IsXPlaneFileName(options.path)) {
    auto read = trace::ReadXSpaceFile(options.path);
    if (!read.ok()) return Fail(err, read.error());
    trace::Trace one = std::move(read).value();
    if (auto rank = trace::RankFromFileName(options.path)) one.rank = *rank;
    run.ranks.push_back(std::move(one));
  } else {
    // A memory-timeline export is told by its first bytes; anything else is read as a trace
    // (a large .json.gz inflated on a second thread as it is parsed: ReadTraceFile).
    auto head = trace::ReadTextHead(options.path, 4096);
    if (!head.ok()) return Fail(err, head.error());
    if (trace::LooksLikeMemoryTimeline(*head)) return PrintMemoryTimeline(options, out, err);
    auto parsed = trace::ReadTraceFile(options.path);
    if (!parsed.ok()) return Fail(err, parsed.error());
    trace::Trace one = std::move(parsed).value();
    if (!one.has_distributed_info) {
      if (auto rank = trace::RankFromFileName(options.path)) one.rank = *rank;
    }
    run.ranks.push_back(std::move(one));
  }
  if (options.convention == "hta") {
    trace::ApplyHtaConvention(run, options.include_last_profiler_step ? trace::HtaLastStep::kInclude
                                                                      : trace::HtaLastStep::kDrop);
  }
  // Only what is shown is computed: the analyses asked for with -a (every one for the HTML
  // report), the text summary's temporal and idle parts, the critical path a range asks for.
  std::set<std::string> computed;
  if (!options.analyses.empty() && options.html.empty()) {
    computed.insert(options.analyses.begin(), options.analyses.end());
    if (!options.json) computed.insert({"temporal", "idle"});
    if (!options.critical_path_range.empty()) computed.insert("critical_path");
  }
  std::optional<trace::PeakFlops> peaks;
  if (computed.empty() || computed.count("mfu") > 0) {
#if XPUPERF_ANALYZE_PEAKS
    auto resolved = ResolveTracePeaks(run, options.spec);
    if (!resolved.ok()) {
      err << "xpuperf analyze: error: " << resolved.error().message << "\n";
      return kExitUsage;
    }
    peaks = std::move(resolved).value();
#else
    peaks = trace::PeakFlops{};
    peaks->unavailable = "unsupported: built without benchmarks (no spec sheets)";
#endif
  }
  trace::RunReport report =
      trace::AnalyzeRun(run, static_cast<size_t>(options.top), options.critical_path_range,
                        computed, peaks ? &*peaks : nullptr);
  if (!options.critical_path_range.empty() &&
      std::none_of(report.ranks.begin(), report.ranks.end(),
                   [](const auto& r) { return r.evidence.critical_path.found; })) {
    err << "xpuperf analyze: error: --critical-path-range: no host range (op or annotation) whose "
           "name "
           "contains '"
        << options.critical_path_range << "' in the trace\n";
    return kExitUsage;
  }
  std::optional<nlohmann::json> telemetry;
  if (!options.telemetry.empty()) {
    TelemetryOverlayOptions overlay{
        options.telemetry, std::filesystem::is_directory(options.path, ec) ? "" : options.path,
        options.merged_trace, options.telemetry_offset_s};
    auto overlaid = AnalyzeTelemetry(run, overlay);
    if (!overlaid.ok()) return Fail(err, overlaid.error());
    telemetry = std::move(overlaid).value();
  }
  if (!options.html.empty()) {
    Status written = WriteOutputFile(options.html, RenderAnalyzeHtml(run, report, options.top));
    if (!written.ok()) return Fail(err, written.error());
  }
  if (!options.export_chrome.empty()) {
    Status written = trace::WriteChromeTrace(run, options.export_chrome);
    if (!written.ok()) return Fail(err, written.error());
  }
  if (options.json) {
    std::set<std::string> wanted(options.analyses.begin(), options.analyses.end());
    nlohmann::json j = trace::ToJson(report, wanted);
    if (options.convention == "hta") {
      j["convention"] = "hta";
      j["include_last_profiler_step"] = options.include_last_profiler_step;
    }
    if (telemetry) j["telemetry"] = *telemetry;
    out << j.dump(2) << "\n";
  } else {
    if (options.convention == "hta") {
      out << "Convention: hta (timestamps, filtering and definitions as Holistic Trace Analysis "
             "reads them; docs/TRACES.md)\n";
    }
    out << RenderAnalyzeText(report, options.analyses, options.top);
    if (telemetry) out << RenderTelemetryText(*telemetry);
    if (!options.html.empty()) out << "\nHTML report: " << options.html << "\n";
    if (!options.export_chrome.empty()) out << "Chrome trace: " << options.export_chrome << "\n";
  }
  return kExitOk;
}

}  // namespace xpuperf::analyze
