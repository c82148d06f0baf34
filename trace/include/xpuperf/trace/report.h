// Everything `xpuperf analyze` reports, as one value with a JSON form, and the trace diff behind
// `xpuperf compare A.json B.json`.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "xpuperf/trace/analyses.h"
#include "xpuperf/trace/analysis_registry.h"
#include "xpuperf/trace/findings.h"

namespace xpuperf::trace {

// Analysis names accepted by --analysis: "findings", then RegisteredAnalyses()'s.
const std::vector<std::string>& AnalysisNames();

struct RankReport {
  std::string source;
  std::string format;
  int64_t events = 0;
  int64_t skipped_events = 0;  // not analysed: no usable ts, unmatched B/E (Trace::skipped_events)
  int64_t input_bytes = 0;
  RankEvidence
      evidence;  // temporal, idle, kernels, overlap, launch, memcpy, iterations, memory, operators
  QueueLength queue;
  std::vector<GemmPoint> gemm;
  std::vector<Finding> findings;
  std::vector<AnalysisOutput> outputs;  // outputs[i] is RegisteredAnalyses()[i]'s
};

struct RunReport {
  std::vector<RankReport> ranks;
  Stragglers stragglers;
};

// `analyses`: the analyses to compute, by AnalysisNames() name; empty = all. What is not asked
// for stays empty in the report (`analyze -a temporal` does not pay for the critical path).
// `peaks`: the device's spec peaks for the MFU analysis (model_flops.h); null: MFU says why not.
RunReport AnalyzeRun(const TraceRun& run, size_t top_k = 10,
                     std::string_view critical_path_range = {},
                     const std::set<std::string>& analyses = {}, const PeakFlops* peaks = nullptr);

// A registered analysis's output as JSON: its fields, and each table as an array of row objects
// (columns without a json_key left out).
nlohmann::json ToJson(const AnalysisOutput& output);

// Findings as a JSON array (rule, severity, rank, title, value, threshold, evidence, advice).
nlohmann::json FindingsToJson(const std::vector<Finding>& findings);

// `analyses` empty = all. Field names carry units (_ns, _bytes, _gbps).
nlohmann::json ToJson(const RunReport& report, const std::set<std::string>& analyses = {});

struct OpDiff {
  std::string name;
  std::string kind;  // "cpu_op" or "gpu"
  int64_t count_a = 0;
  int64_t count_b = 0;
  int64_t total_ns_a = 0;
  int64_t total_ns_b = 0;
};
struct TraceDiff {
  std::vector<OpDiff> added;    // only in B
  std::vector<OpDiff> removed;  // only in A
  std::vector<OpDiff> changed;  // in both with a different count or total time, by |delta time|
  int64_t unchanged = 0;
};
// Compares CPU ops and GPU ops (kernels, memcpy, memset) by name.
TraceDiff CompareTraces(const Trace& a, const Trace& b);
nlohmann::json ToJson(const TraceDiff& diff);

}  // namespace xpuperf::trace
