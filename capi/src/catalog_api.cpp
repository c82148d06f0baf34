// The metric catalog through the C ABI.
#include <string>
#include <vector>

#include "capi_internal.h"
#include "xpuperf/core/metric_catalog.h"

namespace {

// NUL-terminated copies of the catalog strings, built once (thread-safe static initialisation) and
// never freed, so the pointers handed out stay valid for the life of the process.
struct CatalogStrings {
  std::string name, unit, description, labels;
};

const std::vector<CatalogStrings>& Strings() {
  static const auto* strings = [] {
    auto* out = new std::vector<CatalogStrings>();
    for (const xpuperf::MetricInfo& m : xpuperf::MetricCatalog()) {
      out->push_back({std::string(m.name), std::string(m.unit), std::string(m.description),
                      std::string(m.labels)});
    }
    return out;
  }();
  return *strings;
}

int KindOf(xpuperf::MetricKind kind) {
  switch (kind) {
    case xpuperf::MetricKind::kGauge:
      return XPUPERF_METRIC_GAUGE;
    case xpuperf::MetricKind::kCounter:
      return XPUPERF_METRIC_COUNTER;
    case xpuperf::MetricKind::kDistribution:
      return XPUPERF_METRIC_DISTRIBUTION;
  }
  return XPUPERF_METRIC_GAUGE;
}

}  // namespace

extern "C" {

XPUPERF_API size_t xpuperf_metric_count(void) { return xpuperf::MetricCatalog().size(); }

XPUPERF_API int xpuperf_get_metric_info(size_t index, xpuperf_metric_info* out) {
  return xpuperf::capi::Guarded(__func__, [&] {
    if (out == nullptr) {
      return xpuperf::capi::Fail(XPUPERF_ERROR_INVALID_ARGUMENT,
                                 "xpuperf_metric_info: out is NULL");
    }
    const auto catalog = xpuperf::MetricCatalog();
    if (index >= catalog.size()) {
      return xpuperf::capi::Fail(XPUPERF_ERROR_INVALID_ARGUMENT,
                                 "xpuperf_metric_info: index " + std::to_string(index) +
                                     " out of range (count " + std::to_string(catalog.size()) +
                                     ")");
    }
    const CatalogStrings& s = Strings()[index];
    out->name = s.name.c_str();
    out->unit = s.unit.c_str();
    out->kind = KindOf(catalog[index].kind);
    out->description = s.description.c_str();
    out->labels = s.labels.c_str();
    return static_cast<int>(XPUPERF_OK);
  });
}

}  // extern "C"
