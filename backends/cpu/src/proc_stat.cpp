#include "xpuperf/cpu/proc_stat.h"

#include <array>

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::cpu {
namespace {

Result<CpuTimes> ParseCpuLine(const std::vector<std::string_view>& fields, size_t line_number) {
  // fields[0] is "cpu" or "cpuN"; then user nice system idle [iowait irq softirq steal guest
  // guest_nice], the optional ones depending on the kernel version.
  constexpr size_t kMinimumCounters = 4;
  if (fields.size() < 1 + kMinimumCounters) {
    return MakeError(ErrorCode::kParse, "line " + std::to_string(line_number) +
                                            ": expected at least 4 counters after '" +
                                            std::string(fields[0]) + "'");
  }
  CpuTimes times;
  std::array<uint64_t*, 10> slots = {&times.user,   &times.nice,      &times.system,  &times.idle,
                                     &times.iowait, &times.irq,       &times.softirq, &times.steal,
                                     &times.guest,  &times.guest_nice};
  for (size_t i = 1; i < fields.size() && i - 1 < slots.size(); ++i) {
    std::optional<uint64_t> value = ParseUnsigned(fields[i]);
    if (!value) {
      return MakeError(ErrorCode::kParse, "line " + std::to_string(line_number) + ": '" +
                                              std::string(fields[i]) + "' is not a tick count");
    }
    *slots[i - 1] = *value;
  }
  return times;
}

Result<uint64_t> ParseCounterLine(const std::vector<std::string_view>& fields, size_t line_number) {
  std::optional<uint64_t> value = fields.size() == 2 ? ParseUnsigned(fields[1]) : std::nullopt;
  if (!value) {
    return MakeError(ErrorCode::kParse, "line " + std::to_string(line_number) + ": expected '" +
                                            std::string(fields[0]) + " N'");
  }
  return *value;
}

// Deltas of monotonic counters; a counter that went backwards contributes nothing.
uint64_t Delta(uint64_t before, uint64_t after) { return after > before ? after - before : 0; }

}  // namespace

Result<ProcStat> ParseProcStat(std::string_view text) {
  ProcStat stat;
  bool saw_total = false;
  std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    // The lines not needed (intr with a count per interrupt, softirq, ctxt, ...) are skipped by
    // their first word before being split: intr alone is most of the text, and splitting it was
    // most of a 1 kHz recorder poll's parse.
    const std::string_view line = lines[i];
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) continue;
    const std::string_view first = line.substr(start, line.find_first_of(" \t", start) - start);
    if (!first.starts_with("cpu") && first != "procs_running" && first != "procs_blocked") continue;
    std::vector<std::string_view> fields = SplitFields(line);
    if (fields.empty()) continue;
    const size_t line_number = i + 1;
    if (fields[0] == "cpu") {
      XPUPERF_ASSIGN_OR_RETURN(stat.total, ParseCpuLine(fields, line_number));
      saw_total = true;
    } else if (std::optional<int> cpu = ParseIndexedName(fields[0], "cpu")) {
      XPUPERF_ASSIGN_OR_RETURN(CpuTimes times, ParseCpuLine(fields, line_number));
      stat.per_cpu.push_back(CpuTimesOfCpu{*cpu, times});
    } else if (fields[0] == "procs_running") {
      XPUPERF_ASSIGN_OR_RETURN(stat.procs_running, ParseCounterLine(fields, line_number));
    } else if (fields[0] == "procs_blocked") {
      XPUPERF_ASSIGN_OR_RETURN(stat.procs_blocked, ParseCounterLine(fields, line_number));
    }
    // Other lines (intr, ctxt, btime, processes, softirq) are not needed.
  }
  if (!saw_total) return MakeError(ErrorCode::kParse, "no aggregate 'cpu' line");
  return stat;
}

Result<ProcStat> ReadProcStat(const std::string& root) {
  const std::string path = JoinRoot(root, "/proc/stat");
  XPUPERF_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  Result<ProcStat> stat = ParseProcStat(text);
  if (!stat.ok()) return MakeError(ErrorCode::kParse, path + ": " + stat.error().message);
  return stat;
}

std::optional<double> BusyPercent(const CpuTimes& before, const CpuTimes& after) {
  const uint64_t busy = Delta(before.user, after.user) + Delta(before.nice, after.nice) +
                        Delta(before.system, after.system) + Delta(before.irq, after.irq) +
                        Delta(before.softirq, after.softirq);
  const uint64_t idle = Delta(before.idle, after.idle) + Delta(before.iowait, after.iowait);
  const uint64_t total = busy + idle;
  if (total == 0) return std::nullopt;
  return 100.0 * static_cast<double>(busy) / static_cast<double>(total);
}

}  // namespace xpuperf::cpu
