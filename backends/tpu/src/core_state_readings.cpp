// TPU-Z's view of each core from the runtime status, as tpu-info shows it (`--metric core_state`,
// `sequencer_state`, `queued_programs`): one sample of value 1 per core, sequencer or queued
// program, the state in its labels.
#include <fmt/format.h>

#include "tpu_readings.h"
#include "tpu_telemetry.pb.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf::tpu {
namespace {

namespace m = metrics;

std::string Hex(const std::string& bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out;
}

Sample Info(const Device& device, int core, int global, int64_t wall_ns) {
  Sample s;
  s.labels.Set(labels::kDevice, device.id);
  s.labels.Set(labels::kCore, std::to_string(core));
  s.labels.Set("global_core", std::to_string(global));
  s.timestamp_ns = wall_ns;
  s.value = 1.0;
  return s;
}

}  // namespace

std::vector<Reading> CoreStateReadings(std::string_view metric, ReadingContext& context) {
  std::vector<std::vector<Sample>> samples(context.devices.size());
  std::vector<bool> has_state(context.devices.size(), false);
  ForEachCoreState(context, [&](size_t device, int core, int global, const auto& state) {
    has_state[device] = true;
    const Device& d = context.devices[device];
    if (metric == m::kCoreState) {
      Sample s = Info(d, core, global, context.wall_ns);
      s.labels.Set("core_type",
                   ::tpu_telemetry::TpuCoreTypeProto_Name(state.core_id().core_on_chip().type()));
      s.labels.Set("program", Hex(state.program_fingerprint()));
      s.labels.Set("xdb_server", state.xdb_server_running() ? "true" : "false");
      samples[device].push_back(std::move(s));
    } else if (metric == m::kSequencerState) {
      for (const auto& sequencer : state.sequencer_info()) {
        Sample s = Info(d, core, global, context.wall_ns);
        const std::string type =
            ::tpu_telemetry::TpuSequencerTypeProto_Name(sequencer.sequencer_type());
        s.labels.Set("sequencer", std::to_string(sequencer.sequencer_index()));
        s.labels.Set("sequencer_type", type);
        s.labels.Set("pc", std::to_string(sequencer.pc()));
        s.labels.Set("tracemark", std::to_string(sequencer.tracemark()));
        s.labels.Set("program_id", std::to_string(sequencer.program_id()));
        s.labels.Set("run_id", std::to_string(sequencer.run_id()));
        samples[device].push_back(std::move(s));
      }
    } else {
      for (const auto& program : state.queued_program_info()) {
        Sample s = Info(d, core, global, context.wall_ns);
        s.labels.Set("run_id", std::to_string(program.run_id()));
        s.labels.Set("launch_id", std::to_string(program.launch_id()));
        s.labels.Set("program", Hex(program.program_fingerprint()));
        samples[device].push_back(std::move(s));
      }
    }
  });
  std::vector<Reading> out;
  for (size_t i = 0; i < context.devices.size(); ++i) {
    const Device& device = context.devices[i];
    if (!has_state[i]) {
      out.push_back(Reading::Unsupported(
          metric, device.id,
          context.fetch.AnyReachable()
              ? std::string("unsupported: the TPU runtime answers no runtime status (core states) "
                            "for it")
              : context.fetch.UnreachableReason()));
      continue;
    }
    if (samples[i].empty()) {
      out.push_back(Reading::NoData(metric, device.id,
                                    metric == m::kQueuedProgram
                                        ? "no program is queued on its cores"
                                        : "the runtime reports no sequencer on its cores"));
      continue;
    }
    Reading r;
    r.metric = std::string(metric);
    r.device = device.id;
    r.samples = std::move(samples[i]);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace xpuperf::tpu
