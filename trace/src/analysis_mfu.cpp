// The MFU analysis: model FLOPs from recorded shapes per step, and their utilisation of the
// device's spec peaks (model_flops.h). Registered in registered_analyses.inc.
#include <fmt/format.h>

#include <utility>

#include "xpuperf/core/units_text.h"
#include "xpuperf/trace/analysis_registry.h"
#include "xpuperf/trace/model_flops.h"

namespace xpuperf::trace {
namespace {

constexpr std::string_view kFormula =
    "MFU = Σ over a step's operators of FLOPs / peak FLOP/s of the operator's precision, divided "
    "by the step's wall time; FLOPs from recorded shapes as PyTorch's flop counter counts them "
    "(matrix products 2·M·N·K, convolutions, attention 2·B·H·L·S·(E+Ev), backward ops included)";

// Seconds a step's operators would take at the peaks; -1 when a precision has no peak.
double SecondsAtPeak(const std::map<std::string, double>& flops, const PeakFlops& peaks) {
  double seconds = 0;
  for (const auto& [precision, f] : flops) {
    const double peak = PeakFor(peaks, precision, nullptr);
    if (peak <= 0) return -1;
    seconds += f / peak;
  }
  return seconds;
}

double Sum(const std::map<std::string, double>& flops) {
  double total = 0;
  for (const auto& [precision, f] : flops) total += f;
  return total;
}

AnalysisOutput ComputeMfu(const Trace& trace, const AnalysisContext& context) {
  AnalysisOutput out;
  const ModelFlops model = ComputeModelFlops(trace);
  if (model.counted_ops == 0 && model.ops_without_shapes == 0 &&
      model.ops_with_unusable_shapes == 0) {
    return out;  // no operator that does a model's arithmetic: nothing to say
  }
  const PeakFlops* peaks = context.peaks;
  std::string unavailable;
  if (peaks == nullptr || peaks->per_precision.empty()) {
    unavailable = peaks == nullptr || peaks->unavailable.empty()
                      ? "no peak FLOP/s for the device (give --spec)"
                      : peaks->unavailable;
  } else {
    for (const auto& [precision, f] : model.flops_by_precision) {
      if (PeakFor(*peaks, precision, nullptr) <= 0) {
        unavailable =
            fmt::format("the spec sheet has no peak for {} (nor a wider precision)", precision);
      }
    }
  }
  if (model.counted_ops == 0) unavailable = "no operator with usable shapes";
  const bool with_mfu = unavailable.empty();

  double total_flops = 0, total_seconds = 0, total_at_peak = 0;
  Table steps{"",
              "steps",
              {{"step", "step"},
               {"time", "time_ns"},
               {"model FLOPs", "flops"},
               {"achieved", "flops_per_second"}},
              {}};
  if (with_mfu) steps.columns.push_back({"MFU", "mfu"});
  for (const StepFlops& s : model.steps) {
    const double flops = Sum(s.flops);
    const double seconds = static_cast<double>(s.dur_ns) * 1e-9;
    std::vector<Cell> row{Cell::Text(s.name), Cell::Ns(s.dur_ns), Cell::Flops(flops),
                          Cell::FlopRate(seconds > 0 ? flops / seconds : 0)};
    if (with_mfu) {
      const double at_peak = SecondsAtPeak(s.flops, *peaks);
      row.push_back(Cell::Fraction(seconds > 0 ? at_peak / seconds : 0));
      total_at_peak += at_peak;
    }
    steps.rows.push_back(std::move(row));
    total_flops += flops;
    total_seconds += seconds;
  }
  const double mfu = with_mfu && total_seconds > 0 ? total_at_peak / total_seconds : 0;
  const std::string where = model.whole_trace ? "over the trace's span (no ProfilerStep#N)"
                                              : fmt::format("over {} step{}", model.steps.size(),
                                                            model.steps.size() == 1 ? "" : "s");
  steps.caption = with_mfu ? fmt::format("Model FLOP utilisation, rank {}: {:.1f}% {} against {}",
                                         trace.rank, 100 * mfu, where, peaks->source)
                           : fmt::format("Model FLOPs, rank {}, {} (MFU not computed: see below)",
                                         trace.rank, where);
  if (model.steps.size() > 1) {
    std::vector<Cell> row{Cell::Text("all steps"),
                          Cell::Ns(static_cast<int64_t>(total_seconds * 1e9)),
                          Cell::Flops(total_flops),
                          Cell::FlopRate(total_seconds > 0 ? total_flops / total_seconds : 0)};
    if (with_mfu) row.push_back(Cell::Fraction(mfu));
    steps.rows.push_back(std::move(row));
  }

  Table precisions{fmt::format("Model FLOPs by precision, rank {}", trace.rank),
                   "precisions",
                   {{"precision", "precision"},
                    {"model FLOPs", "flops"},
                    {"share", "share"},
                    {"peak used", "peak_precision"},
                    {"peak", "peak_flops_per_second"}},
                   {}};
  const bool any_peak = peaks != nullptr && !peaks->per_precision.empty();
  if (!any_peak) precisions.columns.resize(3);
  for (const auto& [precision, f] : model.flops_by_precision) {
    std::vector<Cell> row{Cell::Text(precision), Cell::Flops(f),
                          Cell::Fraction(total_flops > 0 ? f / total_flops : 0)};
    if (any_peak) {
      std::string used;
      const double peak = PeakFor(*peaks, precision, &used);
      row.push_back(Cell::Text(peak > 0 ? used : "none"));
      row.push_back(Cell::FlopRate(peak));
    }
    precisions.rows.push_back(std::move(row));
  }

  std::vector<std::string>& notes = out.notes;
  if (!unavailable.empty()) notes.push_back("MFU not computed: " + unavailable + ".");
  notes.push_back(std::string(kFormula) + ".");
  notes.push_back(fmt::format(
      "{} operators counted: matrix products {}, convolutions {}, attention {}.", model.counted_ops,
      FormatSi(model.matrix_product_flops, "FLOP"), FormatSi(model.convolution_flops, "FLOP"),
      FormatSi(model.attention_flops, "FLOP")));
  if (model.ops_without_shapes > 0) {
    notes.push_back(fmt::format(
        "{} matrix, convolution or attention operators have no Input Dims and count nothing: "
        "record with torch.profiler.profile(record_shapes=True).",
        model.ops_without_shapes));
  }
  if (model.ops_with_unusable_shapes > 0) {
    notes.push_back(fmt::format(
        "{} operators count nothing: their shapes do not define the FLOPs (a convolution needs "
        "its Concrete Inputs, recorded by PyTorch 2.1 and later).",
        model.ops_with_unusable_shapes));
  }
  for (const std::string& note : model.precision_notes) notes.push_back(note + ".");

  out.fields = {{"model_flops", Cell::Number(total_flops)},
                {"step_seconds", Cell::Number(total_seconds)},
                {"steps", Cell::Count(static_cast<int64_t>(model.steps.size()))},
                {"step_source", Cell::Text(model.whole_trace ? "trace span" : "ProfilerStep#N")},
                {"counted_ops", Cell::Count(model.counted_ops)},
                {"ops_without_shapes", Cell::Count(model.ops_without_shapes)},
                {"ops_with_unusable_shapes", Cell::Count(model.ops_with_unusable_shapes)},
                {"formula", Cell::Text(std::string(kFormula))}};
  if (with_mfu) {
    out.fields.push_back({"mfu", Cell::Fraction(mfu)});
    out.fields.push_back({"peak_source", Cell::Text(peaks->source)});
  } else {
    out.fields.push_back({"mfu_unavailable", Cell::Text(unavailable)});
  }
  out.tables.push_back(std::move(steps));
  out.tables.push_back(std::move(precisions));
  return out;
}

}  // namespace

extern const AnalysisDescriptor kMfuAnalysis = {
    .name = "mfu",
    .title = "Model FLOP utilisation",
    .json_key = "mfu",
    .compute = ComputeMfu,
};

}  // namespace xpuperf::trace
