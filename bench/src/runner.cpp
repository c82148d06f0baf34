#include "xpuperf/bench/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ostream>

#include "consistency.h"
#include "xpuperf/bench/machine_state.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/error_context.h"

namespace xpuperf::bench {
namespace {

bool Selected(const Benchmark& benchmark, const RunFilter& filter) {
  const auto& components = filter.components;
  const auto& names = filter.benchmarks;
  const bool component_ok =
      components.empty() ||
      std::find(components.begin(), components.end(), benchmark.component()) != components.end();
  const bool name_ok =
      names.empty() || std::find(names.begin(), names.end(), benchmark.name()) != names.end();
  return component_ok && name_ok;
}

// The GPU benchmarks are the ones named gpu_*.
bool RunsOnGpus(const Benchmark& benchmark) { return benchmark.name().rfind("gpu_", 0) == 0; }

}  // namespace

void JudgeSpread(Measurement& m, const SamplingOptions& sampling) {
  const SampleStatistics& s = m.statistics;
  if (s.count == 1) {
    MarkUnstable(m, "one sample: its spread is unknown (take at least 2)");
  } else if (s.count > 1 && s.robust_cv > sampling.target_cv) {
    MarkUnstable(m, fmt::format("samples spread: robust CV {:.1f}% (1.4826 MAD / median) above "
                                "the {:.1f}% target after {} samples (adaptive sampling stops at "
                                "{:g} s or {} samples)",
                                100 * s.robust_cv, 100 * sampling.target_cv, s.count,
                                sampling.max_point_seconds,
                                std::max(sampling.max_samples, sampling.samples)));
  }
}

Result<SuiteOutcome> RunSuite(const Suite& suite, const RunFilter& filter,
                              const BenchmarkRegistry& registry, RunContext& context,
                              std::ostream& progress) {
  return RunSuite(suite, filter, registry, context, progress, {});
}

Result<SuiteOutcome> RunSuite(const Suite& suite, const RunFilter& filter,
                              const BenchmarkRegistry& registry, RunContext& context,
                              std::ostream& progress, const std::vector<Device>& gpus) {
  XPUPERF_RETURN_IF_ERROR(ValidateSuite(suite, registry));
  for (const std::string& name : filter.benchmarks) {
    if (registry.Find(name) == nullptr) {
      return MakeError(ErrorCode::kNotFound,
                       fmt::format("unknown benchmark '{}' (known: {})", name, registry.Names()));
    }
  }
  SuiteOutcome outcome;
  const Device* const host_device = context.device;
  for (const SuiteEntry& entry : suite.entries) {
    Benchmark& benchmark = *registry.Find(entry.benchmark);
    if (!Selected(benchmark, filter)) continue;
    const std::vector<nlohmann::json> sweep =
        entry.sweep.empty() ? benchmark.default_sweep() : entry.sweep;
    // gpu_* points run once per GPU; without GPUs they are offered the host device, and their
    // CanRun says why they cannot run.
    std::vector<const Device*> targets;
    if (RunsOnGpus(benchmark) && !gpus.empty()) {
      for (const Device& gpu : gpus) targets.push_back(&gpu);
    } else {
      targets.push_back(host_device);
    }
    for (const nlohmann::json& given : sweep) {
      // The typed description fills in the defaults: the record states what ran.
      nlohmann::json point = given;
      if (const auto schema = benchmark.parameter_schema()) {
        XPUPERF_ASSIGN_OR_RETURN(point, ResolvePoint(benchmark.name(), *schema, given));
      }
      for (const Device* target : targets) {
        XPUPERF_RETURN_IF_ERROR(CheckCancelled());
        const bool on_gpu = target != host_device;
        context.device = target;
        const std::string label = fmt::format("{} {}{}", benchmark.name(), given.dump(),
                                              on_gpu ? " on " + target->id : std::string());
        if (Status can = benchmark.CanRun(*context.device, point); !can.ok()) {
          context.device = host_device;
          if (can.error().code == ErrorCode::kUnsupported) {
            progress << "skip  " << label << ": " << can.error().message << "\n";
            outcome.skipped.push_back(label + ": " + can.error().message);
            continue;
          }
          return WithContext(can.error(), label);
        }
        progress << "run   " << label << " ..." << std::flush;
        context.sampling = entry.sampling;
        context.earlier = &outcome.measurements;
        const auto start = std::chrono::steady_clock::now();
        const MachineState before = ReadMachineState(context.machine_root);
        Result<std::vector<Measurement>> measured = benchmark.Run(point, context);
        const LoadDuring load = LoadBetween(before, ReadMachineState(context.machine_root));
        context.device = host_device;
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (!measured.ok()) {
          progress << " failed\n";
          return WithContext(measured.error(), label);
        }
        // A GPU point's figure is the device's; the host's load is recorded, not judged.
        const std::vector<std::string> busy =
            on_gpu ? std::vector<std::string>{} : BusyReasons(load, before.cpus);
        for (Measurement& m : *measured) {
          m.machine_load = ToJson(load);
          JudgeSpread(m, entry.sampling);
          for (const std::string& reason : busy) MarkUnstable(m, "busy machine: " + reason);
        }
        progress << fmt::format(" {:.1f} s", seconds);
        if (!measured->empty()) {
          const Measurement& first = measured->front();
          progress << fmt::format(", {} {:.4g} {}", first.metric, first.value, first.unit);
          if (!first.stable) progress << " UNSTABLE: " << first.unstable_reasons.front();
        }
        progress << "\n";
        for (Measurement& m : *measured) {
          if (on_gpu) {
            m.parameters["device"] = target->id;
            m.device = *target;
          }
          outcome.measurements.push_back(std::move(m));
        }
      }
    }
  }
  outcome.inconsistencies = CheckConsistency(outcome.measurements);
  for (const std::string& sentence : outcome.inconsistencies) {
    progress << "inconsistent figures: " << sentence << "\n";
  }
  return outcome;
}

}  // namespace xpuperf::bench
