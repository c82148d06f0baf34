#include "top_model.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>

#include "xpuperf/core/host_name.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/render/format.h"
#include "xpuperf/telemetry/views.h"

namespace xpuperf::telemetry {

namespace m = metrics;

TopModel::TopModel(std::unique_ptr<Session> session, std::string root)
    : session_(std::move(session)),
      root_(root),
      processes_(std::move(root), SystemClock::Instance(), sysconf(_SC_CLK_TCK),
                 static_cast<uint64_t>(sysconf(_SC_PAGESIZE))),
      host_(HostName()) {
  for (const Device& d : session_->devices()) {
    DeviceSummary summary;
    summary.device = d;
    devices_.push_back(std::move(summary));
  }
  // A first scan so the first Refresh() can report CPU shares; failures surface in Refresh().
  (void)processes_.Refresh();
}

namespace {

// The value of feature "key:value", empty when absent.
std::string Feature(const Device& device, std::string_view key) {
  for (const std::string& f : device.features) {
    if (f.size() > key.size() && f.starts_with(key) && f[key.size()] == ':')
      return f.substr(key.size() + 1);
  }
  return {};
}

std::string Comm(const std::string& root, int pid) {
  std::ifstream in(root + "/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

void Push(std::deque<double>& history, double value) {
  history.push_back(value);
  while (history.size() > TopModel::kHistory) history.pop_front();
}

// What each TPU core is doing, from core_state_info, queued_program_info and core_error_active.
struct CoreActivity {
  std::string program;
  int queued = 0;
  std::string error;
};

std::string CoreStatesText(const std::map<std::string, CoreActivity>& cores) {
  std::string text;
  for (const auto& [core, a] : cores) {
    if (!text.empty()) text += "; ";
    if (cores.size() > 1) text += "core " + core + ": ";
    if (!a.error.empty()) {
      text += "ERROR " + a.error;
      continue;
    }
    text += a.program.empty() ? "idle" : "runs " + a.program;
    if (a.queued > 0) text += fmt::format(", {} queued", a.queued);
  }
  return text;
}

void ApplyCoreState(std::map<std::string, CoreActivity>& cores, const Reading& r) {
  if (r.state != ReadingState::kOk) return;
  for (const Sample& s : r.samples) {
    CoreActivity& a = cores[std::string(s.labels.Get(labels::kCore))];
    if (r.metric == m::kCoreState) {
      a.program = std::string(s.labels.Get("program"));
    } else if (r.metric == m::kQueuedProgram) {
      ++a.queued;
    } else if (s.scalar() > 0) {
      a.error = std::string(s.labels.Get(labels::kError));
    }
  }
}

void Apply(DeviceSummary& d, const Reading& r) {
  if (r.state != ReadingState::kOk) {
    d.missing[r.metric] = r.reason;
    return;
  }
  const Sample* overall = r.Overall();
  auto value = [&] {
    return overall && !overall->is_distribution() ? overall->scalar() : kNoValue;
  };
  if (r.metric == m::kDutyCycle) {
    d.duty_percent = value();
    for (const Sample& s : r.samples) {
      if (s.labels.Has(labels::kCore))
        d.core_duty.emplace_back(s.labels.Get(labels::kCore), s.scalar());
    }
  } else if (r.metric == m::kTensorCoreUtilization) {
    d.simd_percent = value();
  } else if (r.metric == m::kMemoryUsed) {
    d.memory_used_bytes = value();
  } else if (r.metric == m::kMemoryTotal) {
    d.memory_total_bytes = value();
  } else if (r.metric == m::kQueueSize) {
    d.queue = r.samples.empty() ? kNoValue : r.samples.front().scalar();
  } else if (r.metric == m::kPower) {
    // Package and DRAM domains do not overlap; core/uncore/psys would double count.
    double total = 0;
    bool any = false;
    for (const Sample& s : r.samples) {
      const std::string_view domain = s.labels.Get(labels::kDomain);
      if (domain.starts_with("package") || domain.starts_with("dram")) {
        total += s.scalar();
        any = true;
      }
    }
    if (!any && !r.samples.empty()) {
      total = r.samples.front().scalar();
      any = true;
    }
    d.power_watts = any ? total : kNoValue;
  } else if ((r.metric == m::kProcessMemory || r.metric == m::kProcessEngineBusy) &&
             d.device.backend != "cpu") {
    for (const Sample& s : r.samples) {
      const std::string_view pid_text = s.labels.Get(labels::kPid);
      int pid = 0;
      if (std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), pid).ec !=
              std::errc{} ||
          s.is_distribution()) {
        continue;
      }
      auto it = std::find_if(d.processes.begin(), d.processes.end(),
                             [pid](const DeviceProcess& p) { return p.pid == pid; });
      if (it == d.processes.end()) {
        d.processes.push_back(DeviceProcess{pid, std::string(s.labels.Get(labels::kCommand))});
        it = d.processes.end() - 1;
      }
      if (r.metric == m::kProcessMemory) {
        it->memory_bytes = s.scalar();
      } else {
        it->busy_percent =
            std::isnan(it->busy_percent) ? s.scalar() : std::max(it->busy_percent, s.scalar());
      }
    }
  } else if (d.device.backend != "cpu" && (r.metric == m::kClock || r.metric == m::kClockMax)) {
    double& field = r.metric == m::kClock ? d.clock_hz : d.clock_max_hz;
    for (std::string_view type : {"sm", "gfx"}) {
      for (const Sample& s : r.samples)
        if (std::isnan(field) && s.labels.Get(labels::kType) == type) field = s.scalar();
    }
    if (std::isnan(field) && !r.samples.empty()) field = r.samples.front().scalar();
  } else if (r.metric == m::kPowerLimit) {
    for (std::string_view type : {"enforced", "current"}) {
      for (const Sample& s : r.samples) {
        if (std::isnan(d.power_limit_watts) && s.labels.Get(labels::kType) == type)
          d.power_limit_watts = s.scalar();
      }
    }
  } else if (r.metric == m::kPerformanceState) {
    if (!r.samples.empty()) d.performance_state = static_cast<int>(r.samples.front().scalar());
  } else if (r.metric == m::kClockEventActive) {
    d.held_by = ActiveClockEventsText(r);
  } else if (r.metric == m::kThrottleScore) {
    // libtpu scores throttling 0-10 (n: clocks held down by n x 10 %).
    if (value() > 0) d.held_by = fmt::format("throttled {:.0f} %", value() * 10);
  } else if (r.metric == m::kTemperature) {
    for (const Sample& s : r.samples) {
      d.temperatures.push_back({std::string(s.labels.Get(labels::kSensor)), s.scalar()});
    }
    SortTemperatures(d.temperatures);
  }
}

}  // namespace

Status TopModel::Refresh() {
  static const std::vector<std::string> kMetrics = {
      std::string(m::kDutyCycle),         std::string(m::kTensorCoreUtilization),
      std::string(m::kMemoryUsed),        std::string(m::kMemoryTotal),
      std::string(m::kQueueSize),         std::string(m::kPower),
      std::string(m::kTemperature),       std::string(m::kProcessMemory),
      std::string(m::kProcessEngineBusy), std::string(m::kClock),
      std::string(m::kClockMax),          std::string(m::kPowerLimit),
      std::string(m::kPerformanceState),  std::string(m::kClockEventActive),
      std::string(m::kThrottleScore),     std::string(m::kCoreState),
      std::string(m::kQueuedProgram),     std::string(m::kCoreErrorActive)};
  XPUPERF_ASSIGN_OR_RETURN(auto readings, session_->Collect(kMetrics));
  for (DeviceSummary& d : devices_) {
    d.duty_percent = d.simd_percent = d.memory_used_bytes = d.memory_total_bytes = kNoValue;
    d.power_watts = d.queue = kNoValue;
    d.clock_hz = d.clock_max_hz = d.power_limit_watts = kNoValue;
    d.performance_state = -1;
    d.held_by.clear();
    d.temperatures.clear();
    d.core_duty.clear();
    d.missing.clear();
    d.processes.clear();
    d.core_states.clear();
    std::map<std::string, CoreActivity> cores;
    for (const Reading& r : readings) {
      if (r.device != d.device.id) continue;
      if (r.metric == m::kCoreState || r.metric == m::kQueuedProgram ||
          r.metric == m::kCoreErrorActive) {
        ApplyCoreState(cores, r);
      } else {
        Apply(d, r);
      }
    }
    d.core_states = CoreStatesText(cores);
    // TPU chips: the processes holding the device node open (no per-process HBM in the runtime
    // service); names from /proc, where they are visible.
    for (const std::string& f : d.device.features) {
      int pid = 0;
      if (!f.starts_with("pid:") ||
          std::from_chars(f.data() + 4, f.data() + f.size(), pid).ec != std::errc{}) {
        continue;
      }
      if (std::none_of(d.processes.begin(), d.processes.end(),
                       [&](const DeviceProcess& p) { return p.pid == pid; })) {
        d.processes.push_back(DeviceProcess{pid, Comm(root_, pid), kNoValue});
      }
    }
    // GPU processes keep the driver's name only: their pids are the host's, and /proc inside a
    // container may show another process under the same number.
    std::sort(d.processes.begin(), d.processes.end(),
              [](const DeviceProcess& a, const DeviceProcess& b) { return a.pid < b.pid; });
    Push(d.duty_history, d.duty_percent);
    Push(d.memory_history,
         d.memory_total_bytes > 0 ? 100 * d.memory_used_bytes / d.memory_total_bytes : kNoValue);
  }
  return processes_.Refresh();
}

std::string DeviceIdentity(const Device& device) {
  if (device.backend == "cpu") {
    return fmt::format("({} cores, {} threads)", device.topology.cores, device.topology.threads);
  }
  std::vector<std::string> parts;
  if (device.is_partition()) {
    const Partition& p = device.partition;
    parts.push_back(fmt::format("MIG{}, GPU instance {}, compute instance {}",
                                p.profile.empty() ? "" : " " + p.profile, p.gpu_instance_id,
                                p.compute_instance_id));
  }
  if (device.backend == "tpu" && device.topology.cores > 0) {
    parts.push_back(fmt::format("{} TensorCore{}", device.topology.cores,
                                device.topology.cores == 1 ? "" : "s"));
  }
  if (std::string cc = Feature(device, "compute_capability"); !cc.empty()) {
    parts.push_back("compute " + cc);
  }
  if (device.memory_bytes > 0) {
    parts.push_back(FormatBytes(static_cast<double>(device.memory_bytes)) +
                    (device.backend == "tpu" ? " HBM" : ""));
  }
  if (std::string driver = Feature(device, "driver"); !driver.empty()) {
    parts.push_back("driver " + driver);
  }
  if (std::string cuda = Feature(device, "cuda_driver"); !cuda.empty()) {
    parts.push_back("CUDA " + cuda);
  }
  if (std::string node = Feature(device, "node"); !node.empty()) parts.push_back(node);
  if (std::string runtime = Feature(device, "runtime"); !runtime.empty()) {
    parts.push_back("runtime " + runtime);
  }
  if (!device.bus_id.empty()) parts.push_back("bus " + device.bus_id);
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "(" : ", ") + p;
  return out.empty() ? out : out + ")";
}

std::string_view TensorLabel(const Device& device) {
  return device.backend == "cpu" ? "SIMD" : "Tensor";
}

std::string Sparkline(const std::deque<double>& values, size_t width, bool utf8) {
  static const char* kBlocks[] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                  "\u2585", "\u2586", "\u2587", "\u2588"};
  static const char kAscii[] = "_.-:=+*#";
  std::string out;
  const size_t skip = values.size() > width ? values.size() - width : 0;
  for (size_t pad = values.size() - skip; pad < width; ++pad) out += ' ';
  for (size_t i = skip; i < values.size(); ++i) {
    const double v = values[i];
    if (std::isnan(v)) {
      out += ' ';
      continue;
    }
    const int level = std::clamp(static_cast<int>(v / 100.0 * 7.999), 0, 7);
    if (utf8) {
      out += kBlocks[level];
    } else {
      out += kAscii[level];
    }
  }
  return out;
}

}  // namespace xpuperf::telemetry
