#include "xpuperf/roofline/verdict.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace xpuperf::roofline {
namespace {

bool IsMainMemoryName(std::string_view level) {
  return level == "DRAM" || level == "HBM" || level == "memory";
}

BoundTerm MakeTerm(Bound bound, const Ceiling& ceiling, double amount) {
  BoundTerm term;
  term.bound = bound;
  term.ceiling = ceiling.Label();
  term.scope = ceiling.scope;
  term.amount = amount;
  term.ceiling_value = ceiling.value;
  term.seconds = amount / ceiling.value;
  term.stable = ceiling.stable;
  term.unstable_reason = ceiling.unstable_reason;
  return term;
}

void AddMemoryTerms(const Ceilings& ceilings, const WorkloadPoint& point, PointVerdict& verdict,
                    double& main_bytes) {
  const Ceiling* main = ceilings.MainMemory();
  main_bytes = point.bytes;
  for (const auto& [level, bytes] : point.bytes_by_level) {
    if (IsMainMemoryName(level)) main_bytes = bytes;
  }
  for (const auto& [level, bytes] : point.bytes_by_level) {
    if (IsMainMemoryName(level) || bytes == 0) continue;
    const Ceiling* ceiling = ceilings.Memory(level);
    if (ceiling == nullptr) {
      verdict.notes.push_back(
          fmt::format("no {} ceiling measured: its {} ignored", level, FormatBytes(bytes)));
      verdict.ignored_traffic = true;
      continue;
    }
    verdict.terms.push_back(MakeTerm(Bound::kMemory, *ceiling, bytes));
  }
  if (main_bytes > 0) {
    if (main == nullptr) {
      verdict.notes.push_back(
          fmt::format("no main-memory ceiling (STREAM) in the results: {} of "
                      "memory traffic ignored",
                      FormatBytes(main_bytes)));
      verdict.ignored_traffic = true;
    } else {
      verdict.terms.push_back(MakeTerm(Bound::kMemory, *main, main_bytes));
    }
  }
}

}  // namespace

std::string_view BoundName(Bound bound) {
  switch (bound) {
    case Bound::kCompute:
      return "compute";
    case Bound::kMemory:
      return "memory";
    case Bound::kHostLink:
      return "host_link";
    case Bound::kNetwork:
      return "network";
  }
  return "unknown";
}

Result<PointVerdict> JudgePoint(const Ceilings& ceilings, const WorkloadPoint& point) {
  XPUPERF_RETURN_IF_ERROR(ValidatePoint(point));
  PointVerdict verdict;
  verdict.point = point;
  const Ceiling* compute = ceilings.Compute(point.dtype);
  if (compute == nullptr && point.flops > 0) {
    // A precision the results lack (bf16 on a CPU without AVX512_BF16): the nearest precision at
    // least as wide, named; never a narrower one, whose roof would flatter the point.
    compute = ceilings.NearestWiderCompute(point.dtype);
    if (compute != nullptr) {
      verdict.notes.push_back(fmt::format(
          "no {} compute ceiling: the nearest one at least as wide, {}, is used instead",
          point.dtype, compute->Label()));
    } else {
      verdict.notes.push_back(fmt::format(
          "no {} compute ceiling and none of a wider precision: FLOPs not bounded", point.dtype));
      verdict.ignored_traffic = true;
    }
  }
  if (compute != nullptr && point.flops > 0) {
    verdict.terms.push_back(MakeTerm(Bound::kCompute, *compute, point.flops));
    verdict.peak_flops = compute->value;
  }
  double main_bytes = 0;
  AddMemoryTerms(ceilings, point, verdict, main_bytes);
  if (point.host_bytes > 0) {
    if (const Ceiling* host = ceilings.HostLink(point.host_direction)) {
      verdict.terms.push_back(MakeTerm(Bound::kHostLink, *host, point.host_bytes));
    } else {
      verdict.notes.push_back(fmt::format("no host_transfer {} result: {} of host traffic ignored",
                                          point.host_direction, FormatBytes(point.host_bytes)));
      verdict.ignored_traffic = true;
    }
  }
  if (point.collective_bytes > 0) {
    if (const Ceiling* network = ceilings.Network()) {
      verdict.terms.push_back(MakeTerm(Bound::kNetwork, *network, point.collective_bytes));
    } else {
      verdict.notes.push_back(fmt::format("no collectives result: {} of collective traffic ignored",
                                          FormatBytes(point.collective_bytes)));
      verdict.ignored_traffic = true;
    }
  }
  if (verdict.terms.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("{}: no ceiling in the results bounds this point ({})", point.name,
                                 fmt::join(verdict.notes, "; ")));
  }
  const auto binding = std::max_element(
      verdict.terms.begin(), verdict.terms.end(),
      [](const BoundTerm& a, const BoundTerm& b) { return a.seconds < b.seconds; });
  verdict.bound = binding->bound;
  verdict.bound_scope = binding->scope;
  verdict.roof_seconds = binding->seconds;
  if (!binding->stable) {
    verdict.unstable = fmt::format(
        "the binding {} ceiling was measured unstable ({}): not judged; "
        "run the benchmarks again on an idle machine",
        binding->ceiling, binding->unstable_reason);
  }
  for (const BoundTerm& term : verdict.terms) {
    if (&term != &*binding &&
        std::fabs(term.seconds - binding->seconds) <= kTieTolerance * binding->seconds) {
      verdict.tied.push_back(term.ceiling);
    }
  }
  if (point.flops > 0 && main_bytes > 0) verdict.intensity = point.flops / main_bytes;
  if (verdict.peak_flops && verdict.intensity) {
    if (const Ceiling* main = ceilings.MainMemory()) {
      verdict.attainable_flops = std::min(*verdict.peak_flops, *verdict.intensity * main->value);
    }
  } else if (verdict.peak_flops) {
    verdict.attainable_flops = verdict.peak_flops;
  }
  if (point.time_seconds) {
    const double t = *point.time_seconds;
    if (point.flops > 0) verdict.achieved_flops = point.flops / t;
    verdict.fraction_of_roof = verdict.roof_seconds / t;
    // Within rounding of the roof counts as on it (a kernel whose own result made the ceiling).
    const double gap = t - verdict.roof_seconds;
    verdict.headroom_seconds = gap > kTieTolerance * verdict.roof_seconds ? gap : 0.0;
    verdict.above_roof = t < verdict.roof_seconds * (1 - kTieTolerance);
  }
  return verdict;
}

Result<Analysis> Analyze(const Ceilings& ceilings, const Workload& workload) {
  Analysis analysis;
  BoundSummary summaries[4];
  for (int i = 0; i < 4; ++i) summaries[i].bound = static_cast<Bound>(i);
  for (const WorkloadPoint& point : workload.points) {
    XPUPERF_ASSIGN_OR_RETURN(PointVerdict verdict, JudgePoint(ceilings, point));
    BoundSummary& summary = summaries[static_cast<int>(verdict.bound)];
    ++summary.points;
    if (point.time_seconds) {
      summary.measured_seconds += *point.time_seconds;
      summary.roof_seconds += verdict.roof_seconds;
      summary.headroom_seconds += *verdict.headroom_seconds;
      analysis.measured_seconds += *point.time_seconds;
      analysis.headroom_seconds += *verdict.headroom_seconds;
    } else {
      ++analysis.untimed_points;
    }
    analysis.verdicts.push_back(std::move(verdict));
  }
  for (const BoundSummary& summary : summaries) {
    if (summary.points > 0) analysis.by_bound.push_back(summary);
  }
  return analysis;
}

}  // namespace xpuperf::roofline
