#include "xpuperf/exporter/series_naming.h"

namespace xpuperf::exporter {

std::string_view FamilyTypeName(FamilyType type) {
  switch (type) {
    case FamilyType::kGauge:
      return "gauge";
    case FamilyType::kCounter:
      return "counter";
    case FamilyType::kHistogram:
      return "histogram";
    case FamilyType::kInfo:
      return "info";
  }
  return "unknown";
}

SeriesNaming NamingFor(const MetricInfo& info) {
  SeriesNaming naming;
  std::string name(kPrefix);
  name += info.name;
  constexpr std::string_view kPercent = "_percent";
  if (name.ends_with(kPercent)) {
    name.resize(name.size() - kPercent.size());
    name += "_ratio";
    naming.divisor = 100;
  }
  switch (info.kind) {
    case MetricKind::kCounter:
      naming.type = FamilyType::kCounter;
      if (!name.ends_with("_total")) name += "_total";
      break;
    case MetricKind::kDistribution:
      naming.type = FamilyType::kHistogram;
      break;
    case MetricKind::kGauge:
      naming.type = FamilyType::kGauge;
      break;
  }
  naming.name = std::move(name);
  return naming;
}

std::string SeriesNameFor(std::string_view catalog_name) {
  const MetricInfo* info = FindMetric(catalog_name);
  return info == nullptr ? std::string() : NamingFor(*info).name;
}

}  // namespace xpuperf::exporter
