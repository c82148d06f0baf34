// The list of registered analyses (registered_analyses.inc) and the output model's helpers.
#include "xpuperf/trace/analysis_registry.h"

#include <algorithm>

namespace xpuperf::trace {

#define XPUPERF_TRACE_ANALYSIS(descriptor) extern const AnalysisDescriptor descriptor;
#include "registered_analyses.inc"
#undef XPUPERF_TRACE_ANALYSIS

bool AnalysisOutput::HasRows() const {
  return std::any_of(tables.begin(), tables.end(), [](const Table& t) { return !t.rows.empty(); });
}

const std::vector<const AnalysisDescriptor*>& RegisteredAnalyses() {
  static const std::vector<const AnalysisDescriptor*> kAnalyses = {
#define XPUPERF_TRACE_ANALYSIS(descriptor) &(descriptor),
#include "registered_analyses.inc"
#undef XPUPERF_TRACE_ANALYSIS
  };
  return kAnalyses;
}

const AnalysisDescriptor* FindRegisteredAnalysis(std::string_view name) {
  for (const AnalysisDescriptor* d : RegisteredAnalyses()) {
    if (d->name == name) return d;
  }
  return nullptr;
}

}  // namespace xpuperf::trace
