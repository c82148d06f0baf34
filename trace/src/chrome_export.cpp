#include "xpuperf/trace/chrome_export.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>

#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/output_file.h"

namespace xpuperf::trace {
namespace {

// A JSON string literal (RFC 8259 escapes; bytes >= 0x80 pass through, invalid UTF-8 included:
// names come from the trace as they were).
void AppendJsonString(std::string& out, std::string_view text) {
  out.push_back('"');
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (u < 0x20) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", u);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

// ns as microseconds with three decimals ("-12.345"), exact.
void AppendMicros(std::string& out, int64_t ns) {
  const bool negative = ns < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  fmt::format_to(std::back_inserter(out), "{}{}.{:03}", negative ? "-" : "", magnitude / 1000,
                 magnitude % 1000);
}

}  // namespace

Status WriteChromeTrace(const TraceRun& run, const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(OutputFile file, OutputFile::Open(path));
  int64_t base = INT64_MAX;
  for (const Trace& t : run.ranks) {
    if (!t.events.empty()) base = std::min(base, t.events.front().ts_ns);
  }
  if (base == INT64_MAX) base = 0;
  std::string out = fmt::format(R"({{"displayTimeUnit": "ns", "baseTimeNanoseconds": {}, )"
                                R"("traceEvents": [)",
                                base);
  bool first = true;
  auto begin_event = [&] {
    if (!first) out.push_back(',');
    first = false;
    out += "\n";
  };
  // Chrome-trace pids are per file: each rank's (pid) gets its own number.
  std::map<std::pair<size_t, int32_t>, int64_t> pids;
  auto pid_of = [&](size_t rank, int32_t pid) {
    return pids.emplace(std::make_pair(rank, pid), static_cast<int64_t>(pids.size()) + 1)
        .first->second;
  };
  const bool several = run.ranks.size() > 1;
  for (size_t r = 0; r < run.ranks.size(); ++r) {
    const Trace& t = run.ranks[r];
    const std::string prefix = several ? fmt::format("rank {}: ", t.rank) : std::string();
    for (const TrackName& track : t.track_names) {
      begin_event();
      const bool process = track.tid == TrackName::kProcessTrack;
      fmt::format_to(std::back_inserter(out), R"({{"ph": "M", "pid": {}, )", pid_of(r, track.pid));
      if (!process) fmt::format_to(std::back_inserter(out), R"("tid": {}, )", track.tid);
      out += process ? R"("name": "process_name", "args": {"name": )"
                     : R"("name": "thread_name", "args": {"name": )";
      AppendJsonString(out,
                       (process ? prefix : std::string()) + std::string(t.strings.Get(track.name)));
      out += "}}";
    }
    for (size_t i = 0; i < t.events.size(); ++i) {
      const TraceEvent& e = t.events[i];
      begin_event();
      fmt::format_to(std::back_inserter(out), R"({{"ph": "{}", "pid": {}, "tid": {}, "ts": )",
                     e.phase == 'i' ? 'i' : 'X', pid_of(r, e.pid), e.tid);
      AppendMicros(out, e.ts_ns - base);
      if (e.phase != 'i') {
        out += R"(, "dur": )";
        AppendMicros(out, e.dur_ns);
      } else {
        out += R"(, "s": "t")";
      }
      out += R"(, "name": )";
      AppendJsonString(out, t.Name(e));
      out += R"(, "cat": )";
      AppendJsonString(out, t.Category(e));
      out += R"(, "args": {)";
      bool first_arg = true;
      auto arg = [&](std::string_view key) {
        if (!first_arg) out += ", ";
        first_arg = false;
        AppendJsonString(out, key);
        out += ": ";
      };
      if (e.device >= 0) {
        arg("device");
        fmt::format_to(std::back_inserter(out), "{}", e.device);
      }
      if (e.stream >= 0) {
        arg("stream");
        fmt::format_to(std::back_inserter(out), "{}", e.stream);
      }
      if (e.correlation >= 0) {
        arg("correlation");
        fmt::format_to(std::back_inserter(out), "{}", e.correlation);
      }
      if (auto it = t.xla_ops.find(e.name); it != t.xla_ops.end()) {
        const XlaOpInfo& info = it->second;
        if (info.category) {
          arg("hlo_category");
          AppendJsonString(out, t.strings.Get(info.category));
        }
        if (info.flops >= 0) {
          arg("flops");
          fmt::format_to(std::back_inserter(out), "{}", info.flops);
        }
        if (info.bytes_accessed >= 0) {
          arg("bytes_accessed");
          fmt::format_to(std::back_inserter(out), "{}", info.bytes_accessed);
        }
      }
      if (e.module) {
        arg(t.format == TraceFormat::kXPlane ? "hlo_module" : "Module Hierarchy");
        AppendJsonString(out, t.strings.Get(e.module));
      }
      out += "}}";
      if (out.size() > (1u << 20)) {
        XPUPERF_RETURN_IF_ERROR(file.Write(out));
        out.clear();
        XPUPERF_RETURN_IF_ERROR(CheckCancelled());
      }
    }
  }
  out += "\n]}\n";
  XPUPERF_RETURN_IF_ERROR(file.Write(out));
  return file.Commit();
}

}  // namespace xpuperf::trace
