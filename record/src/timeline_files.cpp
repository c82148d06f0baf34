#include "xpuperf/record/timeline_files.h"

#include <fcntl.h>
#include <fmt/compile.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <utility>
#include <vector>

#include "xpuperf/core/concat.h"
#include "xpuperf/core/json.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/core/version.h"
#include "xpuperf/render/csv.h"

namespace xpuperf::record {
namespace {

constexpr std::string_view kTraceClosing = "\n]}\n";

Status WriteAll(int fd, std::string_view data, const std::string& what) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return MakeError(ErrorCode::kIo, "writing " + what + ": " + std::strerror(errno));
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

// Appends whole or not at all: a failed write (a full disk) is cut back to where it started, so
// the file still ends with a whole line.
Status AppendWhole(int fd, std::string_view data, const std::string& what) {
  const off_t start = ::lseek(fd, 0, SEEK_CUR);
  Status written = WriteAll(fd, data, what);
  if (!written.ok() && start >= 0) {
    (void)::ftruncate(fd, start);
    (void)::lseek(fd, start, SEEK_SET);
  }
  return written;
}

Status PwriteAll(int fd, std::string_view data, int64_t offset, const std::string& what) {
  while (!data.empty()) {
    const ssize_t n = ::pwrite(fd, data.data(), data.size(), offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return MakeError(ErrorCode::kIo, "writing " + what + ": " + std::strerror(errno));
    data.remove_prefix(static_cast<size_t>(n));
    offset += n;
  }
  return Status::Ok();
}

// The timeline files grow in place while the job runs (so a kill leaves them readable), which
// needs a regular file: the output policy is applied (a symbolic link is followed, a dangling one
// or a loop refused), and a device or FIFO, which cannot be rewritten in place and would block
// the open, is refused.
Result<OutputTarget> CheckTimelinePath(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(OutputTarget target, PrepareOutput(path));
  if (target.kind != OutputKind::kRegular) {
    return MakeError(
        ErrorCode::kInvalidArgument,
        "cannot write " + path + ": it is a device or FIFO; a recording's files are regular files");
  }
  return target;
}

Result<int> Create(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(const OutputTarget target, CheckTimelinePath(path));
  // O_NONBLOCK: a FIFO put in place since the check fails instead of blocking the recording.
  const int fd =
      ::open(target.resolved.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd < 0)
    return MakeError(ErrorCode::kIo, "cannot create " + path + ": " + std::strerror(errno));
  return fd;
}

std::string LabelText(const Labels& labels) {
  std::string text;
  for (const auto& [k, v] : labels.items()) {
    if (!text.empty()) text += ';';
    text += Concat(k, "=", v);
  }
  return text;
}

}  // namespace

Status CheckRecordingDirectory(const std::string& dir, bool html) {
  for (std::string_view name : {kTimelineCsv, kTimelineJsonl, kTimelineTrace}) {
    XPUPERF_RETURN_IF_ERROR(CheckTimelinePath(dir + "/" + std::string(name)));
  }
  // summary.json and report.html are written at the end: a device or FIFO there would swallow
  // them, so they are refused now as the timeline files are.
  std::vector<std::string_view> finals = {kSummaryJson};
  if (html) finals.push_back(kReportHtml);
  for (std::string_view name : finals) {
    if (auto checked = CheckTimelinePath(dir + "/" + std::string(name)); !checked.ok()) {
      return checked.error();
    }
  }
  return Status::Ok();
}

TimelineFiles::TimelineFiles(TimelineFiles&& other) noexcept { *this = std::move(other); }

TimelineFiles& TimelineFiles::operator=(TimelineFiles&& other) noexcept {
  if (this == &other) return *this;
  CloseAll();
  dir_ = std::move(other.dir_);
  csv_fd_ = std::exchange(other.csv_fd_, -1);
  jsonl_fd_ = std::exchange(other.jsonl_fd_, -1);
  trace_fd_ = std::exchange(other.trace_fd_, -1);
  start_wall_ns_ = other.start_wall_ns_;
  csv_ = std::move(other.csv_);
  jsonl_ = std::move(other.jsonl_);
  trace_ = std::move(other.trace_);
  trace_end_ = other.trace_end_;
  trace_has_events_ = other.trace_has_events_;
  announced_ = other.announced_;
  devices_ = std::move(other.devices_);
  series_text_ = std::move(other.series_text_);
  return *this;
}

TimelineFiles::~TimelineFiles() { CloseAll(); }

void TimelineFiles::CloseAll() {
  for (int* fd : {&csv_fd_, &jsonl_fd_, &trace_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

Result<TimelineFiles> TimelineFiles::Open(const std::string& dir, const RecordingHeader& header) {
  TimelineFiles files;
  files.dir_ = dir;
  files.start_wall_ns_ = header.start_wall_ns;
  files.devices_ = header.devices;
  XPUPERF_ASSIGN_OR_RETURN(files.csv_fd_, Create(dir + "/" + std::string(kTimelineCsv)));
  XPUPERF_ASSIGN_OR_RETURN(files.jsonl_fd_, Create(dir + "/" + std::string(kTimelineJsonl)));
  XPUPERF_ASSIGN_OR_RETURN(files.trace_fd_, Create(dir + "/" + std::string(kTimelineTrace)));
  files.csv_ = "wall_time_ns,elapsed_seconds,device,metric,labels,value,unit\n";
  nlohmann::json head = {{"type", "header"},
                         {"json_schema_version", kJsonSchemaVersion},
                         {"xpuperf_version", kVersion},
                         {"start_wall_ns", header.start_wall_ns},
                         {"rate_hz", header.rate_hz},
                         {"command", header.command},
                         {"pid", header.pid > 0 ? nlohmann::json(header.pid) : nlohmann::json()},
                         {"host", header.host},
                         {"devices", header.devices}};
  files.jsonl_ = head.dump() + "\n";
  nlohmann::json other = {{"producer", "xpuperf record"},
                          {"xpuperf_version", kVersion},
                          {"start_wall_ns", header.start_wall_ns},
                          {"host", header.host},
                          {"command", header.command}};
  std::string start =
      "{\"displayTimeUnit\":\"ms\",\"otherData\":" + other.dump() + ",\"traceEvents\":[\n";
  for (size_t i = 0; i < files.devices_.size(); ++i) {
    start += fmt::format(
        "{}{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"tid\":0,"
        "\"args\":{{\"name\":{}}}}}",
        i == 0 ? "" : ",\n", i + 1, nlohmann::json("telemetry " + files.devices_[i]).dump());
  }
  files.trace_has_events_ = !files.devices_.empty();
  XPUPERF_RETURN_IF_ERROR(PwriteAll(files.trace_fd_, start + std::string(kTraceClosing), 0,
                                    std::string(kTimelineTrace)));
  files.trace_end_ = static_cast<int64_t>(start.size());
  return files;
}

int TimelineFiles::TracePid(const std::string& device) {
  for (size_t i = 0; i < devices_.size(); ++i) {
    if (devices_[i] == device) return static_cast<int>(i + 1);
  }
  devices_.push_back(device);
  const int pid = static_cast<int>(devices_.size());
  trace_ += fmt::format(
      "{}{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"tid\":0,"
      "\"args\":{{\"name\":{}}}}}",
      trace_has_events_ ? ",\n" : "", pid, nlohmann::json("telemetry " + device).dump());
  trace_has_events_ = true;
  return pid;
}

void TimelineFiles::Announce(const SeriesTable& table) {
  for (; announced_ < table.size(); ++announced_) {
    const Series& s = table[static_cast<uint32_t>(announced_)];
    nlohmann::json labels = nlohmann::json::object();
    for (const auto& [k, v] : s.labels.items()) labels[k] = v;
    jsonl_ += nlohmann::json({{"type", "series"},
                              {"index", announced_},
                              {"metric", s.metric},
                              {"device", s.device},
                              {"labels", labels},
                              {"unit", s.unit}})
                  .dump() +
              "\n";
    SeriesText text;
    text.csv_middle = ",";
    render::AppendCsvField(text.csv_middle, s.device);
    text.csv_middle += ',';
    render::AppendCsvField(text.csv_middle, s.metric);
    text.csv_middle += ',';
    render::AppendCsvField(text.csv_middle, LabelText(s.labels));
    text.csv_middle += ',';
    text.csv_unit = "," + s.unit + "\n";
    text.trace_name = nlohmann::json(s.metric + (s.unit.empty() ? "" : " (" + s.unit + ")")).dump();
    text.trace_arg = nlohmann::json(s.detail.empty() ? "value" : s.detail).dump();
    text.per_core = s.labels.Has("core");
    series_text_.push_back(std::move(text));
  }
}

// Formatting appends straight into the pending buffers (no temporary strings per value); the
// series' fixed parts come from series_text_. Values use fmt's shortest round-trip form. The
// formats are compiled (FMT_COMPILE): parsing a format string at run time was about a fifth of a
// 1 kHz poll's instructions.
void TimelineFiles::Append(const Tick& tick, const SeriesTable& table) {
  Announce(table);
  const double elapsed = static_cast<double>(tick.wall_ns - start_wall_ns_) / 1e9;
  auto jsonl = std::back_inserter(jsonl_);
  fmt::format_to(jsonl,
                 FMT_COMPILE("{{\"type\":\"tick\",\"wall_ns\":{},\"mono_ns\":{},\"values\":["),
                 tick.wall_ns, tick.mono_ns);
  // The CSV row's time columns are the same for every value of the tick.
  char stamp[64];
  const auto stamp_end =
      fmt::format_to_n(stamp, sizeof(stamp), FMT_COMPILE("{},{:.6f}"), tick.wall_ns, elapsed);
  const std::string_view stamp_text(stamp, std::min(stamp_end.size, sizeof(stamp)));
  // Each value is formatted once (shortest round-trip text) and copied into the three files.
  values_text_.clear();
  value_ends_.clear();
  for (size_t i = 0; i < tick.values.size(); ++i) {
    const TickValue& v = tick.values[i];
    const SeriesText& text = series_text_[v.series];
    const size_t begin = values_text_.size();
    fmt::format_to(std::back_inserter(values_text_), FMT_COMPILE("{}"), v.value);
    const std::string_view value(values_text_.data() + begin, values_text_.size() - begin);
    if (i != 0) jsonl_ += ',';
    jsonl_ += '[';
    jsonl_ += fmt::format_int(v.series).c_str();
    jsonl_ += ',';
    jsonl_ += value;
    jsonl_ += ']';
    csv_ += stamp_text;
    csv_ += text.csv_middle;
    csv_ += value;
    csv_ += text.csv_unit;
    value_ends_.push_back(values_text_.size());
  }
  jsonl_ += "]}\n";
  // Chrome counters: one event per (device, metric) with its series as args; per-core series stay
  // in the CSV/JSONL (hundreds of tracks would bury the rest).
  auto trace = std::back_inserter(trace_);
  const Series* current = nullptr;
  for (size_t i = 0; i < tick.values.size(); ++i) {
    const TickValue& v = tick.values[i];
    const SeriesText& text = series_text_[v.series];
    if (text.per_core) continue;
    const Series& s = table[v.series];
    if (current != nullptr && (s.device != current->device || s.metric != current->metric)) {
      trace_ += "}}";
      current = nullptr;
    }
    if (current == nullptr) {
      const int pid = TracePid(s.device);
      if (trace_has_events_) trace_ += ",\n";
      fmt::format_to(trace,
                     FMT_COMPILE("{{\"ph\":\"C\",\"name\":{},\"pid\":{},\"tid\":0,\"ts\":{}.{:03},"
                                 "\"args\":{{"),
                     text.trace_name, pid, tick.wall_ns / 1000, tick.wall_ns % 1000);
      trace_has_events_ = true;
      current = &s;
    } else {
      trace_ += ',';
    }
    trace_ += text.trace_arg;
    trace_ += ':';
    const size_t begin = i == 0 ? 0 : value_ends_[i - 1];
    trace_.append(values_text_, begin, value_ends_[i] - begin);
  }
  if (current != nullptr) trace_ += "}}";
  value_ends_.clear();
}

Status TimelineFiles::Flush() {
  if (csv_fd_ < 0) return MakeError(ErrorCode::kInternal, "timeline files are not open");
  XPUPERF_RETURN_IF_ERROR(AppendWhole(csv_fd_, csv_, std::string(kTimelineCsv)));
  csv_.clear();
  XPUPERF_RETURN_IF_ERROR(AppendWhole(jsonl_fd_, jsonl_, std::string(kTimelineJsonl)));
  jsonl_.clear();
  if (!trace_.empty()) {
    Status written = PwriteAll(trace_fd_, trace_ + std::string(kTraceClosing), trace_end_,
                               std::string(kTimelineTrace));
    if (!written.ok()) {
      // Put the closing back where it was (those bytes are already on disk), so the trace
      // stays valid JSON up to the last complete flush.
      (void)::pwrite(trace_fd_, kTraceClosing.data(), kTraceClosing.size(), trace_end_);
      (void)::ftruncate(trace_fd_, trace_end_ + static_cast<off_t>(kTraceClosing.size()));
      return written;
    }
    trace_end_ += static_cast<int64_t>(trace_.size());
    trace_.clear();
  }
  return Status::Ok();
}

Status TimelineFiles::WriteSummary(const nlohmann::json& summary) {
  return WriteOutputFile(dir_ + "/" + std::string(kSummaryJson), summary.dump(2) + "\n");
}

}  // namespace xpuperf::record
