#include "xpuperf/bench/runner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <ostream>

#include "consistency.h"
#include "xpuperf/bench/machine_state.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/error_context.h"
#include "xpuperf/core/units_text.h"

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

namespace {

// One point of the plan: a benchmark's resolved point on one target.
struct PlannedPoint {
  const SuiteEntry* entry;
  Benchmark* benchmark;
  nlohmann::json point;
  const Device* target;
  std::string label;
};

}  // namespace

Result<SuiteOutcome> RunSuite(const Suite& suite, const RunFilter& filter,
                              const BenchmarkRegistry& registry, RunContext& context,
                              std::ostream& progress, const std::vector<Device>& gpus,
                              const std::vector<std::string>& done) {
  XPUPERF_RETURN_IF_ERROR(ValidateSuite(suite, registry));
  for (const std::string& name : filter.benchmarks) {
    if (registry.Find(name) == nullptr) {
      return MakeError(ErrorCode::kNotFound,
                       fmt::format("unknown benchmark '{}' (known: {})", name, registry.Names()));
    }
  }
  SuiteOutcome outcome;
  outcome.done = done;
  const Device* const host_device = context.device;
  // The plan first: every point on every target, so progress can say "i of n".
  std::vector<PlannedPoint> plan;
  // Points of entries for other classes of device (`devices:`), by the class they would run on.
  struct LeftOut {
    std::vector<int> lines;
    size_t points = 0;
  };
  std::map<std::string, LeftOut> other_class;
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
        if (!entry.device_classes.empty()) {
          // A class that cannot be told keeps the entry: CanRun then says why it cannot run.
          const Result<std::string> device_class = benchmark.DeviceClass(*target, point);
          if (device_class.ok() && !entry.IsFor(*device_class)) {
            LeftOut& left_out = other_class[*device_class];
            if (std::find(left_out.lines.begin(), left_out.lines.end(), entry.line) ==
                left_out.lines.end()) {
              left_out.lines.push_back(entry.line);
            }
            ++left_out.points;
            continue;
          }
        }
        const bool on_gpu = target != host_device;
        std::string label = fmt::format("{} {}{}", benchmark.name(), given.dump(),
                                        on_gpu ? " on " + target->id : std::string());
        if (std::find(done.begin(), done.end(), label) != done.end()) continue;
        // Variants that share a point, kept because the class could not be told: run once.
        const bool planned = std::any_of(plan.begin(), plan.end(),
                                         [&](const PlannedPoint& p) { return p.label == label; });
        if (planned) continue;
        plan.push_back({&entry, &benchmark, point, target, std::move(label)});
      }
    }
  }
  for (const auto& [device_class, left_out] : other_class) {
    progress << fmt::format(
        "{} point{} left out: the entr{} of line{} {} of {} {} for other "
        "devices than this {} device (`devices:`)\n",
        left_out.points, left_out.points == 1 ? "" : "s", left_out.lines.size() == 1 ? "y" : "ies",
        left_out.lines.size() == 1 ? "" : "s", fmt::join(left_out.lines, ", "), suite.name,
        left_out.lines.size() == 1 ? "is" : "are", device_class);
  }
  const auto run_start = std::chrono::steady_clock::now();
  double measured_seconds = 0;
  int measured_points = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    const PlannedPoint& p = plan[i];
    const std::string step = fmt::format("[{}/{}] ", i + 1, plan.size());
    if (CancellationRequested()) {
      outcome.complete = false;
      for (size_t k = i; k < plan.size(); ++k) outcome.pending.push_back(plan[k].label);
      break;
    }
    const bool on_gpu = p.target != host_device;
    context.device = p.target;
    if (Status can = p.benchmark->CanRun(*context.device, p.point); !can.ok()) {
      context.device = host_device;
      if (can.error().code == ErrorCode::kUnsupported) {
        progress << step << "skip  " << p.label << ": " << can.error().message << "\n";
        outcome.skipped.push_back(p.label + ": " + can.error().message);
        outcome.done.push_back(p.label);
        continue;
      }
      return WithContext(can.error(), p.label);
    }
    progress << step << "run   " << p.label << " ..." << std::flush;
    context.sampling = p.entry->sampling;
    context.earlier = &outcome.measurements;
    const auto start = std::chrono::steady_clock::now();
    const MachineState before = ReadMachineState(context.machine_root);
    Result<std::vector<Measurement>> measured = p.benchmark->Run(p.point, context);
    const LoadDuring load = LoadBetween(before, ReadMachineState(context.machine_root));
    context.device = host_device;
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!measured.ok() && IsOverTimeCap(measured.error())) {
      progress << " skipped: " << measured.error().message << "\n";
      outcome.skipped.push_back(p.label + ": skipped: " + measured.error().message);
      outcome.done.push_back(p.label);
      continue;
    }
    if (!measured.ok()) {
      if (CancellationRequested()) {  // stopped inside the point: it counts as not run
        progress << " stopped\n";
        outcome.complete = false;
        for (size_t k = i; k < plan.size(); ++k) outcome.pending.push_back(plan[k].label);
        break;
      }
      progress << " failed\n";
      return WithContext(measured.error(), p.label);
    }
    // A GPU point's figure is the device's; the host's load is recorded, not judged.
    const std::vector<std::string> busy =
        on_gpu ? std::vector<std::string>{} : BusyReasons(load, before.cpus);
    for (Measurement& m : *measured) {
      m.machine_load = ToJson(load);
      JudgeSpread(m, p.entry->sampling);
      for (const std::string& reason : busy) MarkUnstable(m, "busy machine: " + reason);
    }
    progress << fmt::format(" {:.1f} s", seconds);
    if (!measured->empty()) {
      const Measurement& first = measured->front();
      progress << fmt::format(", {} {:.4g} {}", first.metric, first.value, first.unit);
      if (!first.stable) progress << " UNSTABLE: " << first.unstable_reasons.front();
    }
    measured_seconds += seconds;
    ++measured_points;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count();
    const size_t left = plan.size() - i - 1;
    progress << fmt::format("; {} elapsed", FormatDuration(elapsed));
    if (left > 0) {
      progress << fmt::format(
          ", about {} left ({} points to go at {:.1f} s each so far)",
          FormatDuration(measured_seconds / measured_points * static_cast<double>(left)), left,
          measured_seconds / measured_points);
    }
    progress << "\n";
    for (Measurement& m : *measured) {
      if (on_gpu) {
        m.parameters["device"] = p.target->id;
        m.device = *p.target;
      }
      outcome.measurements.push_back(std::move(m));
    }
    outcome.done.push_back(p.label);
  }
  outcome.inconsistencies = CheckConsistency(outcome.measurements);
  for (const std::string& sentence : outcome.inconsistencies) {
    progress << "inconsistent figures: " << sentence << "\n";
  }
  return outcome;
}

}  // namespace xpuperf::bench
