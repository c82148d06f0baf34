#include "consistency.h"

#include <fmt/format.h>

#include "xpuperf/bench/figures.h"

namespace xpuperf::bench {
namespace {

struct Classified {
  Measurement* measurement;
  Figure figure;
};

std::string DeviceOf(const Measurement& m) {
  if (m.device) return m.device->id;
  return m.parameters.value("device", std::string());
}

std::string IsaOf(const Measurement& m) { return m.parameters.value("simd", std::string()); }

std::string Label(const Measurement& m) {
  return fmt::format("{} {} {:.4g} {}", m.benchmark, m.metric, m.value, m.unit);
}

void Flag(std::vector<std::string>& broken, const std::string& sentence,
          std::initializer_list<Measurement*> involved) {
  for (Measurement* m : involved) MarkUnstable(*m, "inconsistent: " + sentence);
  broken.push_back(sentence);
}

void CheckPeakOrder(const std::vector<Classified>& figures, std::vector<std::string>& broken) {
  for (const Classified& fp32 : figures) {
    if (fp32.figure.kind != FigureKind::kComputePeak || fp32.figure.scope != "fp32") continue;
    for (const Classified& fp64 : figures) {
      if (fp64.figure.kind != FigureKind::kComputePeak || fp64.figure.scope != "fp64") continue;
      const Measurement& a = *fp32.measurement;
      const Measurement& b = *fp64.measurement;
      if (fp32.figure.gpu != fp64.figure.gpu || DeviceOf(a) != DeviceOf(b) ||
          IsaOf(a) != IsaOf(b) || a.value >= b.value) {
        continue;
      }
      Flag(broken,
           fmt::format("fp32 peak {:.4g} is below fp64 peak {:.4g} {}{} (fp32 is never slower "
                       "than fp64 on the same device): one of them was measured on a busy machine",
                       a.value, b.value, a.unit,
                       IsaOf(a).empty() ? std::string() : " at the same ISA (" + IsaOf(a) + ")"),
           {fp32.measurement, fp64.measurement});
    }
  }
}

void CheckGemmBound(const std::vector<Classified>& figures, std::vector<std::string>& broken) {
  for (const Classified& gemm : figures) {
    if (gemm.figure.kind != FigureKind::kComputeGemm || gemm.figure.gpu) continue;
    for (const Classified& peak : figures) {
      if (peak.figure.kind != FigureKind::kComputePeak || peak.figure.gpu ||
          peak.figure.scope != gemm.figure.scope) {
        continue;
      }
      const Measurement& g = *gemm.measurement;
      const Measurement& p = *peak.measurement;
      if (g.value <= kGemmAbovePeakTolerance * p.value) continue;
      Flag(broken,
           fmt::format("{} GEMM {:.4g} is above the {} peak {:.4g} {} (a GEMM cannot outrun the "
                       "peak kernel of its precision): the peak was measured low",
                       gemm.figure.scope, g.value, peak.figure.scope, p.value, p.unit),
           {gemm.measurement, peak.measurement});
    }
  }
}

void CheckNominal(const std::vector<Classified>& figures, std::vector<std::string>& broken) {
  for (const Classified& item : figures) {
    const Measurement& m = *item.measurement;
    if (!m.nominal_peak || *m.nominal_peak <= 0) continue;
    const bool compute = item.figure.kind == FigureKind::kComputePeak ||
                         item.figure.kind == FigureKind::kComputeGemm;
    const double tolerance =
        compute ? kComputeAboveNominalTolerance : kBandwidthAboveNominalTolerance;
    if (m.value <= tolerance * *m.nominal_peak) continue;
    Flag(broken,
         fmt::format("{} is {:.0f}% of its nominal {:.4g} {} (limit {:.0f}%): the figure or the "
                     "nominal's inputs ({}) are wrong",
                     Label(m), 100 * m.value / *m.nominal_peak, *m.nominal_peak, m.unit,
                     100 * tolerance, m.nominal_source.empty() ? "not stated" : m.nominal_source),
         {item.measurement});
  }
}

}  // namespace

std::vector<std::string> CheckConsistency(std::vector<Measurement>& measurements) {
  std::vector<Classified> figures;
  for (Measurement& m : measurements) {
    if (auto figure = ClassifyRecord(m)) figures.push_back({&m, *figure});
  }
  std::vector<std::string> broken;
  CheckPeakOrder(figures, broken);
  CheckGemmBound(figures, broken);
  CheckNominal(figures, broken);
  return broken;
}

}  // namespace xpuperf::bench
