// Internal to the NVIDIA backend: NVML answers -> catalog readings, one per (metric, GPU).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "nvidia_gpu.h"
#include "nvml_library.h"
#include "xpuperf/core/sample.h"

namespace xpuperf::nvidia {

// Reads one metric of one GPU. A GPU marked lost gets a no_data reading with its lost_reason and is
// not queried; a query that answers GPU_IS_LOST marks it lost.
class GpuReader {
 public:
  GpuReader(const NvmlLibrary& library, int64_t wall_ns) : library_(library), wall_ns_(wall_ns) {}

  // `metric` must be one of Handlers(); anything else is unsupported.
  Reading Read(std::string_view metric, Gpu& gpu) const;

  // One metric the backend reports: how it is read, and what must be refreshed before.
  struct Handler {
    std::string_view metric;
    Reading (*read)(const GpuReader& reader, std::string_view metric, Gpu& gpu);
    bool needs_gpm = false;  // GPM samples are refreshed first (Hopper and newer)
    bool needs_xid = false;  // XID events are drained first
  };
  // Every metric of the backend, in catalog order: the one place a metric is added.
  static const std::vector<Handler>& Handlers();

 private:
  Reading DutyCycle(Gpu& gpu) const;
  Reading Memory(std::string_view metric, Gpu& gpu) const;
  Reading Power(Gpu& gpu) const;
  Reading Energy(Gpu& gpu) const;
  Reading Temperature(Gpu& gpu) const;
  // clock_hertz (nvmlDeviceGetClockInfo) or clock_max_hertz (nvmlDeviceGetMaxClockInfo).
  Reading Clocks(std::string_view metric, Gpu& gpu) const;
  // Device state (device_state_readings.cpp): modes, limits, the performance state and the link.
  Reading Modes(Gpu& gpu) const;
  Reading TemperatureLimits(Gpu& gpu) const;
  Reading PowerLimits(Gpu& gpu) const;
  Reading PerformanceState(Gpu& gpu) const;
  // host_link_generation or host_link_width_lanes: current and max.
  Reading PcieLink(std::string_view metric, Gpu& gpu) const;
  // One sample per query that answers, labelled type=<name>, the answer times `scale`; a lost GPU
  // fails the reading, and it is unsupported (with the first failure) when none answers.
  struct UintQuery {
    std::string_view type;
    nvml::DeviceGetUintFn query;
    std::string_view symbol;
  };
  Reading LabelledUints(std::string_view metric, Gpu& gpu, std::initializer_list<UintQuery> queries,
                        double scale) const;
  Reading ClockEvents(Gpu& gpu) const;
  Reading HostLink(Gpu& gpu) const;
  Reading Errors(Gpu& gpu) const;
  Reading Processes(Gpu& gpu) const;
  // Per-process engine busy (nvmlDeviceGetProcessUtilization): each process's newest sample of
  // the last few seconds, per engine (sm, memory, encoder, decoder).
  Reading ProcessUtilization(Gpu& gpu) const;
  // nvmlSystemGetProcessName of a pid; empty when the driver cannot name it.
  std::string ProcessName(unsigned int pid) const;
  Reading LastXid(Gpu& gpu) const;
  // GPM-only metrics: one sample per (id, label value); `label` empty for an unlabelled metric.
  struct GpmSeries {
    unsigned id;
    std::string_view label_value;
    double scale;  // GPM value x scale = catalog value
  };
  Reading Gpm(std::string_view metric, Gpu& gpu, std::string_view label,
              std::initializer_list<GpmSeries> series) const;

  // The reading for a failed query: lost (no_data, and the GPU is marked lost), not supported on
  // this GPU, or failed with NVML's reason.
  Reading Failure(std::string_view metric, Gpu& gpu, std::string_view query,
                  nvml::Return code) const;
  static Reading MissingSymbol(std::string_view metric, const Gpu& gpu, std::string_view symbol);
  Sample MakeSample(const Gpu& gpu, double value) const;

  const NvmlLibrary& library_;
  int64_t wall_ns_;
};

}  // namespace xpuperf::nvidia
