#include <fmt/format.h>

#include "top_view.h"
#include "xpuperf/render/format.h"
#include "xpuperf/render/text_table.h"

namespace xpuperf::telemetry {

using Align = render::TextTable::Align;

std::string Bar(double percent, size_t width) {
  if (std::isnan(percent)) return fmt::format("{:<{}}", "[n/a]", width + 2);
  const size_t filled = static_cast<size_t>(
      std::lround(std::clamp(percent, 0.0, 100.0) / 100.0 * static_cast<double>(width)));
  return "[" + std::string(filled, '|') + std::string(width - filled, ' ') + "]";
}

namespace {
std::string Or(double value, std::string_view unit) {
  return std::isnan(value) ? "n/a" : render::FormatValue(unit, value);
}
}  // namespace

std::string RenderTopPlain(const TopModel& model, size_t processes) {
  render::TextTable devices(fmt::format("xpuperf top - {}", model.host()),
                            {{"Device"},
                             {"Duty cycle"},
                             {"Tensor/SIMD", Align::kRight},
                             {"Memory", Align::kRight},
                             {"Power / limit", Align::kRight},
                             {"Clock / max", Align::kRight},
                             {"Held by"},
                             {"Temp", Align::kRight},
                             {"Queue", Align::kRight}});
  std::string cores;
  for (const DeviceSummary& d : model.devices()) {
    const std::string memory =
        std::isnan(d.memory_used_bytes) || std::isnan(d.memory_total_bytes)
            ? "n/a"
            : FormatBytes(d.memory_used_bytes) + " / " + FormatBytes(d.memory_total_bytes);
    devices.AddRow(
        {render::DeviceColumn(d.device),
         Bar(d.duty_percent, 20) + " " + Or(d.duty_percent, "percent"),
         Or(d.simd_percent, "percent"), memory,
         Or(d.power_watts, "watts") +
             (std::isnan(d.power_limit_watts) ? "" : " / " + Or(d.power_limit_watts, "watts")),
         d.device.backend == "cpu"
             ? "-"
             : Or(d.clock_hz, "hertz") +
                   (std::isnan(d.clock_max_hz) ? "" : " / " + Or(d.clock_max_hz, "hertz")),
         d.held_by.empty() ? "n/a" : d.held_by, FormatTemperatures(d.temperatures),
         std::isnan(d.queue) ? "n/a" : fmt::format("{:g}", d.queue)});
    if (!d.core_duty.empty()) {
      cores += d.device.id + " cores:";
      for (const auto& [core, duty] : d.core_duty) cores += fmt::format(" {}={:.0f}%", core, duty);
      cores += "\n";
    }
    if (!d.core_states.empty()) cores += d.device.id + " state: " + d.core_states + "\n";
  }
  // Per accelerator, the processes using it (as nvtop, nvitop and tpu-info show them).
  render::TextTable device_procs("", {{"Device"},
                                      {"Identity"},
                                      {"PID", Align::kRight},
                                      {"Device memory", Align::kRight},
                                      {"Busy", Align::kRight},
                                      {"Command"}});
  bool any_accelerator = false;
  for (const DeviceSummary& d : model.devices()) {
    if (d.device.backend == "cpu") continue;
    any_accelerator = true;
    if (d.processes.empty()) {
      device_procs.AddRow(
          {render::DeviceColumn(d.device), DeviceIdentity(d.device), "-", "-", "-", "no process"});
    }
    for (const DeviceProcess& p : d.processes) {
      device_procs.AddRow({render::DeviceColumn(d.device), DeviceIdentity(d.device),
                           std::to_string(p.pid),
                           std::isnan(p.memory_bytes) ? "n/a" : FormatBytes(p.memory_bytes),
                           std::isnan(p.busy_percent) ? "n/a" : FormatPercent(p.busy_percent),
                           p.command.empty() ? "?" : p.command});
    }
  }
  render::TextTable procs(
      "", {{"PID", Align::kRight}, {"CPU", Align::kRight}, {"Memory", Align::kRight}, {"Command"}});
  for (const ProcessUsage& p : model.processes(processes)) {
    procs.AddRow({std::to_string(p.pid), FormatPercent(p.cpu_percent),
                  FormatBytes(static_cast<double>(p.rss_bytes)), p.command});
  }
  return devices.Render() + cores + "\n" + (any_accelerator ? device_procs.Render() + "\n" : "") +
         procs.Render() + "\n";
}

}  // namespace xpuperf::telemetry
