#include "xpuperf/bench/machine_state.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

namespace xpuperf::bench {
namespace {

std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::string text;
  text.resize(size_t{64} * 1024);
  file.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(file.gcount()));
  return text;
}

void ReadProcStat(const std::string& text, MachineState& state) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "cpu") {
      int64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0;
      int64_t steal = 0;
      fields >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
      if (fields.fail() && !fields.eof()) continue;
      state.cpu = CpuTicks{
          .busy = user + nice + system + irq + softirq, .idle = idle + iowait, .steal = steal};
    } else if (key.size() > 3 && key.compare(0, 3, "cpu") == 0) {
      ++state.cpus;
    } else if (key == "procs_running") {
      int running = 0;
      if (fields >> running) state.runnable_tasks = running;
    }
  }
}

// utime + stime + cutime + cstime: fields 14 to 17, counted after the ")" that ends the name.
int64_t ReadOwnTicks(const std::string& text) {
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  int64_t total = 0;
  for (int index = 3; index <= 17 && (fields >> field); ++index) {
    if (index >= 14) {
      try {
        total += std::stoll(field);
      } catch (const std::exception&) {
        return 0;
      }
    }
  }
  return total;
}

std::string Percent(double fraction) { return fmt::format("{:.0f}%", 100 * fraction); }

}  // namespace

MachineState ReadMachineState(const std::string& root) {
  MachineState state;
  state.monotonic_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  if (auto loadavg = ReadSmallFile(root + "/proc/loadavg")) {
    std::istringstream fields(*loadavg);
    double one = 0, five = 0;
    if (fields >> one >> five) {
      state.load_average_1m = one;
      state.load_average_5m = five;
    }
  }
  if (auto stat = ReadSmallFile(root + "/proc/stat")) ReadProcStat(*stat, state);
  if (auto self = ReadSmallFile(root + "/proc/self/stat")) state.own_ticks = ReadOwnTicks(*self);
  const std::string cpu_dir = root + "/sys/devices/system/cpu/";
  if (auto governor = ReadSmallFile(cpu_dir + "cpu0/cpufreq/scaling_governor")) {
    state.governor = governor->substr(0, governor->find('\n'));
  } else {
    state.governor = "unavailable: no " + cpu_dir +
                     "cpu0/cpufreq (no cpufreq driver: common on virtual machines)";
  }
  double khz_sum = 0;
  int khz_count = 0;
  for (int cpu = 0; cpu < std::max(state.cpus, 1); ++cpu) {
    auto text = ReadSmallFile(fmt::format("{}cpu{}/cpufreq/scaling_cur_freq", cpu_dir, cpu));
    if (!text) continue;
    try {
      khz_sum += std::stod(*text);
      ++khz_count;
    } catch (const std::exception&) {
    }
  }
  if (khz_count > 0) state.clock_hz = khz_sum / khz_count * 1e3;
  return state;
}

LoadDuring LoadBetween(const MachineState& before, const MachineState& after) {
  LoadDuring load;
  load.seconds = after.monotonic_seconds - before.monotonic_seconds;
  if (!before.cpu || !after.cpu) return load;
  const int64_t busy = after.cpu->busy - before.cpu->busy;
  const int64_t steal = after.cpu->steal - before.cpu->steal;
  const int64_t total = after.cpu->total() - before.cpu->total();
  load.total_ticks = total;
  if (total <= 0) return load;
  const int64_t own = after.own_ticks - before.own_ticks;
  // Ticks are sampled per CPU, so this process's and the machine's counts can disagree by a few
  // ticks; a negative remainder is rounding, not a negative load.
  const int64_t others = std::max<int64_t>(busy - own, 0);
  load.other_cpu_share = static_cast<double>(others) / static_cast<double>(total);
  load.steal_share = static_cast<double>(std::max<int64_t>(steal, 0)) / static_cast<double>(total);
  return load;
}

std::vector<std::string> BusyReasons(const LoadDuring& load, int cpus, std::string_view window) {
  std::vector<std::string> reasons;
  if (load.total_ticks < kMinTicksToJudge) return reasons;
  const std::string of_cpus = cpus > 0 ? fmt::format(" of the {} CPUs", cpus) : std::string();
  if (load.other_cpu_share && *load.other_cpu_share > kBusyOtherCpuShare) {
    reasons.push_back(fmt::format("other processes used {}{} during {} (limit {})",
                                  Percent(*load.other_cpu_share), of_cpus, window,
                                  Percent(kBusyOtherCpuShare)));
  }
  if (load.steal_share && *load.steal_share > kBusyStealShare) {
    reasons.push_back(fmt::format("the hypervisor took {}{} (steal time) during {} (limit {})",
                                  Percent(*load.steal_share), of_cpus, window,
                                  Percent(kBusyStealShare)));
  }
  return reasons;
}

std::vector<std::string> BusyAtStart(const MachineState& window_start, const MachineState& state) {
  return BusyReasons(LoadBetween(window_start, state), state.cpus,
                     fmt::format("the {:g} s before the run", kIdleWindowSeconds));
}

nlohmann::json ToJson(const MachineState& state) {
  nlohmann::json json;
  const auto optional = [](const auto& value) {
    return value ? nlohmann::json(*value) : nlohmann::json();
  };
  json["load_average_1m"] = optional(state.load_average_1m);
  json["load_average_5m"] = optional(state.load_average_5m);
  json["runnable_tasks"] = optional(state.runnable_tasks);
  json["cpus"] = state.cpus;
  json["frequency_governor"] = state.governor;
  json["clock_hz"] = state.clock_hz ? nlohmann::json(*state.clock_hz)
                                    : nlohmann::json("unavailable: no scaling_cur_freq");
  if (!state.cpu) json["cpu_ticks"] = "unavailable: /proc/stat unreadable";
  return json;
}

nlohmann::json ToJson(const LoadDuring& load) {
  const auto optional = [](const std::optional<double>& value) {
    return value ? nlohmann::json(*value) : nlohmann::json();
  };
  return {{"seconds", load.seconds},
          {"other_cpu_share", optional(load.other_cpu_share)},
          {"steal_share", optional(load.steal_share)},
          {"ticks", load.total_ticks},
          {"formula",
           "shares of all CPUs' time between two /proc/stat readings: others = (busy ticks - "
           "this process's and its children's ticks) / all ticks; steal = steal ticks / all "
           "ticks"}};
}

}  // namespace xpuperf::bench
