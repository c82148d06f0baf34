#include "xpuperf/cli/process_table.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace xpuperf::cli {

Result<ProcessStat> ParseProcessStat(std::string_view text) {
  const size_t open = text.find('(');
  const size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return MakeError(ErrorCode::kParse, "process stat: no '(command)' field");
  }
  ProcessStat stat;
  auto pid_text = text.substr(0, open);
  while (!pid_text.empty() && pid_text.back() == ' ') pid_text.remove_suffix(1);
  if (std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), stat.pid).ec !=
      std::errc{}) {
    return MakeError(ErrorCode::kParse, "process stat: bad pid");
  }
  stat.command = std::string(text.substr(open + 1, close - open - 1));
  // Fields after the command, numbered as in proc(5): 3 state, ..., 14 utime, 15 stime, 24 rss.
  std::vector<std::string_view> fields;
  std::string_view rest = text.substr(close + 1);
  size_t pos = 0;
  while (pos < rest.size()) {
    while (pos < rest.size() && (rest[pos] == ' ' || rest[pos] == '\n')) ++pos;
    const size_t end = rest.find_first_of(" \n", pos);
    if (pos < rest.size())
      fields.push_back(rest.substr(pos, end == std::string_view::npos ? end : end - pos));
    pos = end == std::string_view::npos ? rest.size() : end;
  }
  auto field = [&](int number, uint64_t& out) {
    const size_t index = static_cast<size_t>(number - 3);
    if (index >= fields.size()) return false;
    auto f = fields[index];
    return std::from_chars(f.data(), f.data() + f.size(), out).ec == std::errc{};
  };
  uint64_t utime = 0, stime = 0;
  if (!field(14, utime) || !field(15, stime) || !field(24, stat.rss_pages)) {
    return MakeError(ErrorCode::kParse, "process stat: missing utime/stime/rss fields");
  }
  stat.cpu_ticks = utime + stime;
  return stat;
}

ProcessTable::ProcessTable(std::string root, const Clock& clock, long ticks_per_second,
                           long page_bytes)
    : root_(std::move(root)),
      clock_(clock),
      ticks_per_second_(ticks_per_second),
      page_bytes_(page_bytes) {}

Status ProcessTable::Refresh() {
  namespace fs = std::filesystem;
  const fs::path proc = fs::path(root_) / "proc";
  std::error_code ec;
  fs::directory_iterator it(proc, ec);
  if (ec) {
    return MakeError(ErrorCode::kIo, "cannot list " + proc.string() + ": " + ec.message());
  }
  const int64_t now = clock_.MonotonicNs();
  const double seconds = last_ns_ < 0 ? 0 : static_cast<double>(now - last_ns_) * 1e-9;
  std::map<int, uint64_t> ticks;
  std::vector<ProcessUsage> usage;
  for (const fs::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    std::ifstream file(entry.path() / "stat");
    if (!file) continue;  // exited since the listing
    std::stringstream text;
    text << file.rdbuf();
    auto stat = ParseProcessStat(text.str());
    if (!stat.ok()) continue;
    ticks[stat->pid] = stat->cpu_ticks;
    ProcessUsage u{stat->pid, stat->command, 0,
                   stat->rss_pages * static_cast<uint64_t>(page_bytes_)};
    auto previous = last_ticks_.find(stat->pid);
    if (seconds > 0 && previous != last_ticks_.end() && stat->cpu_ticks >= previous->second) {
      u.cpu_percent = 100.0 * static_cast<double>(stat->cpu_ticks - previous->second) /
                      static_cast<double>(ticks_per_second_) / seconds;
    }
    usage.push_back(std::move(u));
  }
  last_ticks_ = std::move(ticks);
  last_ns_ = now;
  std::sort(usage.begin(), usage.end(), [](const ProcessUsage& a, const ProcessUsage& b) {
    if (a.cpu_percent != b.cpu_percent) return a.cpu_percent > b.cpu_percent;
    if (a.rss_bytes != b.rss_bytes) return a.rss_bytes > b.rss_bytes;
    return a.pid < b.pid;
  });
  current_ = std::move(usage);
  return Status::Ok();
}

std::vector<ProcessUsage> ProcessTable::Top(size_t limit) const {
  return {current_.begin(), current_.begin() + static_cast<long>(std::min(limit, current_.size()))};
}

}  // namespace xpuperf::cli
