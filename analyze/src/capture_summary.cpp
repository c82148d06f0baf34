// The findings of a capture in a few sentences, for the alert `capture --on-alert` posts back.
#include <cstdio>

#include "xpuperf/analyze/analyze.h"
#include "xpuperf/trace/reader.h"
#include "xpuperf/trace/report.h"

namespace xpuperf::analyze {

namespace {

std::string Milliseconds(int64_t ns) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f ms", static_cast<double>(ns) / 1e6);
  return text;
}

// A few lines for the alert: what was analysed, every finding's title, the top ops by time.
}  // namespace

Result<std::string> SummariseCapture(const std::string& dir) {
  XPUPERF_ASSIGN_OR_RETURN(trace::TraceRun run, trace::ReadTraceRun(dir));
  const trace::RunReport report = trace::AnalyzeRun(run, 5);
  int64_t events = 0;
  for (const auto& rank : report.ranks) events += rank.events;
  std::string text = std::to_string(report.ranks.size()) +
                     (report.ranks.size() == 1 ? " rank, " : " ranks, ") + std::to_string(events) +
                     " events analysed.";
  size_t findings = 0;
  for (const auto& rank : report.ranks) findings += rank.findings.size();
  if (findings == 0) {
    text += " No bottleneck rule fired.";
  } else {
    text += " Findings:";
    for (const auto& rank : report.ranks) {
      for (const auto& f : rank.findings) {
        text += " [" + std::string(trace::SeverityName(f.severity)) + "] " + f.rule + " (rank " +
                std::to_string(f.rank) + "): " + f.title + ";";
      }
    }
  }
  for (const auto& rank : report.ranks) {
    const auto& ops = rank.evidence.operators.by_name;
    if (ops.empty()) continue;
    text += " Top ops of rank " + std::to_string(rank.evidence.operators.rank) + " (exclusive):";
    for (size_t i = 0; i < ops.size() && i < 3; ++i) {
      text += " " + ops[i].name + " " + Milliseconds(ops[i].exclusive_ns) + " in " +
              std::to_string(ops[i].count) + " calls" + (i + 1 < ops.size() && i < 2 ? "," : ";");
    }
  }
  text += " Details: xpuperf analyze " + dir;
  return text;
}

}  // namespace xpuperf::analyze
