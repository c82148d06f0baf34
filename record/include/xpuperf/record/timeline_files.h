// The files of a recording, written so that a kill at any moment leaves them parseable up to the
// last flush: timeline.csv and timeline.jsonl grow by whole lines, timeline.trace.json (Chrome
// counter tracks) keeps a valid closing after every flush, summary.json is replaced atomically.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/record/timeline.h"

namespace xpuperf::record {

inline constexpr std::string_view kTimelineCsv = "timeline.csv";
inline constexpr std::string_view kTimelineJsonl = "timeline.jsonl";
inline constexpr std::string_view kTimelineTrace = "timeline.trace.json";
inline constexpr std::string_view kSummaryJson = "summary.json";
inline constexpr std::string_view kReportHtml = "report.html";

// Checks, before a recording starts, that every file it will write in `dir` (an existing
// directory) may be written under the output policy (docs/POLICIES.md): absent, a regular file or
// a link to one; the timeline files also not a device or FIFO. kInvalidArgument naming the file.
Status CheckRecordingDirectory(const std::string& dir, bool html);

struct RecordingHeader {
  int64_t start_wall_ns = 0;
  double rate_hz = 0;
  std::vector<std::string> command;
  int pid = 0;
  std::string host;
  std::vector<std::string> devices;  // device ids, in session order (Chrome-trace pids)
};

// Not thread-safe. Lines are buffered in memory and written by Flush().
class TimelineFiles {
 public:
  TimelineFiles() = default;
  TimelineFiles(TimelineFiles&& other) noexcept;
  TimelineFiles& operator=(TimelineFiles&& other) noexcept;
  ~TimelineFiles();

  // Creates (truncates) the three timeline files in `dir`, which must exist.
  static Result<TimelineFiles> Open(const std::string& dir, const RecordingHeader& header);

  void Append(const Tick& tick, const SeriesTable& table);
  size_t buffered_bytes() const { return csv_.size() + jsonl_.size() + trace_.size(); }
  Status Flush();
  // Writes summary.json under the core output policy (a temporary file renamed into place), so a
  // reader never sees half of it.
  Status WriteSummary(const nlohmann::json& summary);

  const std::string& dir() const { return dir_; }

 private:
  void Announce(const SeriesTable& table);
  int TracePid(const std::string& device);
  void CloseAll();

  // A series' fixed text, formatted once when it is announced rather than at every tick.
  struct SeriesText {
    std::string csv_middle;  // ",device,metric,labels," (CSV-quoted)
    std::string csv_unit;    // "," + unit + "\n"
    std::string trace_name;  // JSON string: "metric (unit)"
    std::string trace_arg;   // JSON string: the series' detail, or "value"
    bool per_core = false;   // kept out of the Chrome trace
  };

  std::string dir_;
  int csv_fd_ = -1, jsonl_fd_ = -1, trace_fd_ = -1;
  int64_t start_wall_ns_ = 0;
  std::string csv_, jsonl_, trace_;  // pending complete lines
  int64_t trace_end_ = 0;            // offset where the events end (the closing follows)
  bool trace_has_events_ = false;
  size_t announced_ = 0;                 // series already described in timeline.jsonl
  std::vector<std::string> devices_;     // Chrome-trace pid = index + 1
  std::vector<SeriesText> series_text_;  // by series index
  // The current tick's values as text, one after another, and where each ends (reused buffers).
  std::string values_text_;
  std::vector<size_t> value_ends_;
};

}  // namespace xpuperf::record
