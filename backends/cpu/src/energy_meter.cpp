#include "energy_meter.h"

#include <map>
#include <set>

#include "cpu_readings.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::cpu {
namespace {

constexpr double kMicrounitsPerUnit = 1e6;  // µJ per J, µW per W
constexpr double kNanosecondsPerSecond = 1e9;

// Domain labels for hwmon channels: the chip name when the chip has one channel of this kind,
// "<chip>/<channel label>" otherwise; "@hwmonN" is appended where two chips share a name.
class HwmonDomainNamer {
 public:
  std::string Name(const HwmonChip& chip, const HwmonChannel& channel) {
    int channels_of_kind = 0;
    for (const HwmonChannel& other : chip.channels) channels_of_kind += other.kind == channel.kind;
    std::string domain = channels_of_kind == 1 ? chip.name : chip.name + "/" + channel.label;
    if (!used_[channel.kind].insert(domain).second) domain += "@" + chip.id;
    return domain;
  }

 private:
  std::map<HwmonChannelKind, std::set<std::string>> used_;
};

}  // namespace

void EnergyMeter::LabelCounters(std::vector<Counter>& counters) {
  for (Counter& counter : counters) {
    counter.labels.Set(labels::kDevice, kCpuDeviceId);
    counter.labels.Set(labels::kDomain, counter.domain);
  }
}

EnergyMeter EnergyMeter::Open(const std::string& root, int64_t now_ns) {
  EnergyMeter meter;
  meter.last_power_ns_ = now_ns;
  std::optional<Error> rapl_error;
  std::string rapl_error_path;
  for (const RaplZone& zone : ListRaplZones(root)) {
    Result<uint64_t> energy = ReadRaplEnergyMicrojoules(zone);
    if (!energy.ok()) {
      if (!rapl_error) {
        rapl_error = energy.error();
        rapl_error_path = zone.path + "/energy_uj";
      }
      continue;
    }
    meter.counters_.push_back(Counter{.domain = zone.domain,
                                      .path = zone.path + "/energy_uj",
                                      .labels = {},
                                      .file = std::nullopt,
                                      .wrap_range_uj = zone.max_energy_range_uj,
                                      .last_raw_uj = *energy,
                                      .read_ok = true});
  }
  if (!meter.counters_.empty()) {
    LabelCounters(meter.counters_);
    return meter;
  }

  HwmonDomainNamer namer;
  for (const HwmonChip& chip : ListHwmonChips(root)) {
    for (const HwmonChannel& channel : chip.channels) {
      if (channel.kind == HwmonChannelKind::kPower) {
        meter.power_channels_.push_back(PowerChannel{namer.Name(chip, channel), chip, channel});
      } else if (channel.kind == HwmonChannelKind::kEnergy) {
        Result<int64_t> energy = ReadHwmonChannel(chip, channel);
        if (!energy.ok() || *energy < 0) continue;
        meter.counters_.push_back(Counter{.domain = namer.Name(chip, channel),
                                          .path = chip.path + "/" + channel.file,
                                          .labels = {},
                                          .file = std::nullopt,
                                          .wrap_range_uj = std::nullopt,
                                          .last_raw_uj = static_cast<uint64_t>(*energy),
                                          .read_ok = true});
      }
    }
  }
  LabelCounters(meter.counters_);
  if (meter.counters_.empty() && meter.power_channels_.empty()) {
    if (rapl_error) {
      meter.unsupported_reason_ = DescribeRaplReadFailure(rapl_error_path, *rapl_error);
    } else {
      meter.unsupported_reason_ =
          "unsupported: no RAPL domain under /sys/class/powercap and no hwmon power sensor";
    }
  } else if (meter.counters_.empty()) {
    meter.energy_unsupported_reason_ =
        "unsupported: the hwmon power sensors have no energy counter (energyN_input)";
  }
  return meter;
}

uint64_t EnergyMeter::CounterDelta(const Counter& counter, uint64_t raw_uj) {
  if (counter.wrap_range_uj) {
    return RaplEnergyDeltaMicrojoules(counter.last_raw_uj, raw_uj, *counter.wrap_range_uj);
  }
  return raw_uj >= counter.last_raw_uj ? raw_uj - counter.last_raw_uj : raw_uj;
}

void EnergyMeter::RefreshCounters(int64_t now_ns) {
  if (now_ns == last_refresh_ns_) return;
  last_refresh_ns_ = now_ns;
  for (Counter& counter : counters_) {
    if (!counter.file) {  // opened on first use; a failed open is retried on the next read
      Result<SysfsAttribute> file = SysfsAttribute::Open(counter.path);
      if (file.ok()) counter.file.emplace(std::move(file).value());
    }
    Result<uint64_t> raw =
        counter.file ? counter.file->ReadUnsigned() : ReadUnsignedFile(counter.path);
    counter.read_ok = raw.ok();
    if (!raw.ok()) {
      last_error_ = raw.error();
      // The kept descriptor may point at an attribute that is gone (driver reload) or a file
      // replaced by rename: opened again at the next read.
      counter.file.reset();
      continue;
    }
    counter.since_open_uj += CounterDelta(counter, *raw);
    counter.last_raw_uj = *raw;
  }
}

Reading EnergyMeter::Power(int64_t now_ns, int64_t wall_ns) {
  if (!unsupported_reason_.empty()) return UnsupportedReading(metrics::kPower, unsupported_reason_);
  RefreshCounters(now_ns);
  Reading reading = OkReading(metrics::kPower);
  for (const PowerChannel& power : power_channels_) {
    Result<int64_t> microwatts = ReadHwmonChannel(power.chip, power.channel);
    if (!microwatts.ok()) {
      last_error_ = microwatts.error();
      continue;
    }
    reading.samples.push_back(MakeSample(static_cast<double>(*microwatts) / kMicrounitsPerUnit,
                                         wall_ns, {{std::string(labels::kDomain), power.domain}}));
  }
  const int64_t elapsed_ns = now_ns - last_power_ns_;
  if (elapsed_ns > 0) {
    const double elapsed_s = static_cast<double>(elapsed_ns) / kNanosecondsPerSecond;
    for (Counter& counter : counters_) {
      if (!counter.read_ok) continue;
      const uint64_t used_uj = counter.since_open_uj - counter.since_open_at_last_power_uj;
      counter.since_open_at_last_power_uj = counter.since_open_uj;
      reading.samples.push_back(Sample{
          counter.labels, wall_ns, static_cast<double>(used_uj) / kMicrounitsPerUnit / elapsed_s});
    }
    last_power_ns_ = now_ns;
  }
  if (!reading.samples.empty()) return reading;
  if (elapsed_ns <= 0 && power_channels_.empty()) {
    return NoDataReading(metrics::kPower,
                         "no data: no time elapsed since the previous power sample");
  }
  return UnsupportedReading(
      metrics::kPower, last_error_.value_or(Error{ErrorCode::kIo, "no power sensor readable"}));
}

Reading EnergyMeter::Energy(int64_t now_ns, int64_t wall_ns) {
  if (!unsupported_reason_.empty())
    return UnsupportedReading(metrics::kEnergy, unsupported_reason_);
  if (counters_.empty()) return UnsupportedReading(metrics::kEnergy, energy_unsupported_reason_);
  RefreshCounters(now_ns);
  Reading reading = OkReading(metrics::kEnergy);
  for (const Counter& counter : counters_) {
    if (!counter.read_ok) continue;
    reading.samples.push_back(Sample{
        counter.labels, wall_ns, static_cast<double>(counter.since_open_uj) / kMicrounitsPerUnit});
  }
  if (reading.samples.empty()) {
    return UnsupportedReading(metrics::kEnergy, last_error_.value_or(Error{
                                                    ErrorCode::kIo, "no energy counter readable"}));
  }
  return reading;
}

}  // namespace xpuperf::cpu
