// The terminal form of an analysis: a short summary (what dominates, findings, what to do) and
// then one table per analysis.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "xpuperf/analyze/analyze.h"
#include "xpuperf/render/format.h"
#include "xpuperf/render/text_table.h"

namespace xpuperf::analyze {
namespace {

using trace::RankReport;
using trace::RunReport;
using Align = render::TextTable::Align;

std::string Sec(int64_t ns) { return FormatSeconds(static_cast<double>(ns) / 1e9); }
std::string Pct(int64_t part, int64_t whole) {
  return whole > 0 ? FormatPercent(100.0 * static_cast<double>(part) / static_cast<double>(whole))
                   : "-";
}

// One sentence on what the GPU time of a rank is made of.
std::string Dominant(const RankReport& r) {
  const auto& t = r.evidence.temporal;
  if (t.gpu_ops == 0 && r.evidence.launches.host_launch_calls > 0) {
    // The host launched kernels: a GPU run whose device side was not recorded.
    return fmt::format(
        "a GPU run without its GPU side: the host made {} kernel launch calls but the trace holds "
        "no GPU events, so GPU time cannot be analysed (record them: torch.profiler with "
        "ProfilerActivity.CUDA, or Kineto/CUPTI activity tracing on)",
        r.evidence.launches.host_launch_calls);
  }
  if (t.gpu_ops == 0) {
    return "no GPU work in this trace (CPU only): see the operator table for where CPU time goes";
  }
  struct Part {
    const char* what;
    int64_t ns;
  } parts[] = {{"idle", t.idle_ns},
               {"compute", t.compute_ns},
               {"non-compute (comm/memory)", t.non_compute_ns}};
  auto top = *std::max_element(std::begin(parts), std::end(parts),
                               [](const Part& a, const Part& b) { return a.ns < b.ns; });
  std::string text = fmt::format("{} dominates: {} of the {} GPU window", top.what,
                                 Pct(top.ns, t.window_ns), Sec(t.window_ns));
  if (std::string_view(top.what) == "idle") {
    int64_t host = 0, kernel = 0, other = 0;
    for (const auto& s : r.evidence.idle.streams) {
      host += s.host_wait_ns;
      kernel += s.kernel_wait_ns;
      other += s.other_ns;
    }
    int64_t all = host + kernel + other;
    if (all > 0) {
      text += fmt::format(" (idle gaps between ops: host wait {}, kernel wait {}, other {})",
                          Pct(host, all), Pct(kernel, all), Pct(other, all));
    }
  }
  return text;
}

// "MFU 41.2% over 20 steps (model FLOPs 1.2 PFLOP; peaks: spec sheet ...)" from the mfu
// analysis's fields; empty when it did not run or found no model FLOPs.
std::string MfuSummary(const trace::RankReport& r) {
  const auto& registered = trace::RegisteredAnalyses();
  for (size_t a = 0; a < registered.size() && a < r.outputs.size(); ++a) {
    if (registered[a]->name != "mfu") continue;
    const trace::Cell *mfu = nullptr, *flops = nullptr, *steps = nullptr, *source = nullptr,
                      *unavailable = nullptr;
    for (const trace::Field& f : r.outputs[a].fields) {
      if (f.json_key == "mfu") mfu = &f.value;
      if (f.json_key == "model_flops") flops = &f.value;
      if (f.json_key == "steps") steps = &f.value;
      if (f.json_key == "peak_source") source = &f.value;
      if (f.json_key == "mfu_unavailable") unavailable = &f.value;
    }
    if (flops == nullptr || steps == nullptr) return {};
    const std::string over =
        fmt::format("{} step{}", steps->integer, steps->integer == 1 ? "" : "s");
    if (mfu != nullptr && source != nullptr) {
      return fmt::format("MFU {:.1f}% over {} ({} of model FLOPs against {})", 100 * mfu->number,
                         over, FormatSi(flops->number, "FLOP"), source->text);
    }
    return fmt::format("model FLOPs {} over {}; no MFU: {}", FormatSi(flops->number, "FLOP"), over,
                       unavailable != nullptr ? unavailable->text : "no peaks");
  }
  return {};
}

bool Wanted(const std::vector<std::string>& analyses, const char* name) {
  return analyses.empty() || std::find(analyses.begin(), analyses.end(), name) != analyses.end();
}

}  // namespace

std::string RenderOutputText(const trace::AnalysisOutput& output) {
  std::string text;
  for (const trace::Table& table : output.tables) text += RenderTableText(table);
  for (const std::string& note : output.notes) text += render::WrapNote(note);
  return text;
}

std::string RenderAnalyzeText(const RunReport& report, const std::vector<std::string>& analyses,
                              int top) {
  std::ostringstream out;
  size_t top_k = static_cast<size_t>(top);
  int64_t events = 0, skipped = 0, bytes = 0;
  for (const auto& r : report.ranks) {
    events += r.events;
    skipped += r.skipped_events;
    bytes += r.input_bytes;
  }
  const std::string skipped_note =
      skipped > 0
          ? fmt::format(" ({} more skipped: no usable timestamp, or an unmatched B/E)", skipped)
          : "";
  const bool xspace = !report.ranks.empty() && report.ranks[0].format == "xplane";
  out << fmt::format("Trace: {} ({} rank{}, {} events{}, {} of {}, format {})\n",
                     report.ranks.size() == 1 ? report.ranks[0].source : "run directory",
                     report.ranks.size(), report.ranks.size() == 1 ? "" : "s", events, skipped_note,
                     FormatBytes(static_cast<double>(bytes)), xspace ? "XSpace" : "JSON",
                     report.ranks.empty() ? "-" : report.ranks[0].format);
  out << "\nSummary\n";
  for (const auto& r : report.ranks) {
    out << fmt::format("  rank {}: {}\n", r.evidence.rank, Dominant(r));
    if (std::string mfu = MfuSummary(r); !mfu.empty()) out << "          " << mfu << "\n";
  }
  bool any = false;
  if (Wanted(analyses, "findings")) {
    out << "\nFindings\n";
    for (const auto& r : report.ranks) {
      for (const auto& f : r.findings) {
        any = true;
        out << fmt::format("  [{}] rank {}: {}\n", trace::SeverityName(f.severity), f.rank,
                           f.title);
        out << "      evidence: " << f.evidence << "\n";
        out << "      advice:   " << f.advice << "\n";
      }
    }
    if (!any) out << "  none of the rules fired (see docs/TRACES.md for the rule table)\n";
  }
  // Every registered analysis (trace/src/registered_analyses.inc), in its order: a report view's
  // tables across ranks, a computed analysis's output rank by rank.
  const auto& registered = trace::RegisteredAnalyses();
  for (size_t a = 0; a < registered.size(); ++a) {
    if (!Wanted(analyses, std::string(registered[a]->name).c_str())) continue;
    if (registered[a]->view != nullptr) {
      for (const trace::Table& table : registered[a]->view(report, top_k)) {
        out << RenderTableText(table);
      }
      continue;
    }
    for (const auto& r : report.ranks) {
      if (a < r.outputs.size()) out << RenderOutputText(r.outputs[a]);
    }
  }
  return out.str();
}

std::string RenderMemoryTimelineText(const trace::MemoryTimelineSummary& s) {
  std::ostringstream out;
  out << fmt::format("Memory timeline: {} ({} rows)\n", s.source, s.rows);
  out << fmt::format("Peak live memory {} at ts {}; at the end {}\n",
                     FormatBytes(static_cast<double>(s.peak_bytes)), s.peak_ts,
                     FormatBytes(static_cast<double>(s.final_bytes)));
  render::TextTable t("By category", {{"category"},
                                      {"at peak", Align::kRight},
                                      {"share", Align::kRight},
                                      {"own maximum", Align::kRight}});
  for (int c = 0; c < trace::kMemoryCategories; ++c) {
    t.AddRow({std::string(trace::MemoryCategoryName(c)),
              FormatBytes(static_cast<double>(s.at_peak[c])), Pct(s.at_peak[c], s.peak_bytes),
              FormatBytes(static_cast<double>(s.max_by_category[c]))});
  }
  out << "\n" << t.Render();
  return out.str();
}

}  // namespace xpuperf::analyze
