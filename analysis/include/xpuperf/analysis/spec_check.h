// Does the hardware deliver its spec sheet? The best measured figure of each component of a run
// against the sheet's peak, with a pass/fail threshold per component.
//
// What is compared (all in base units, FLOP/s and bytes/s; GB = 1e9 bytes):
//   compute        per precision p, the best value of metric "<p>_flops" of benchmarks peak_fma and
//                  gemm vs the sheet's peak "<p>"; where the sheet gives the vector and the
//                  matrix rate apart ("<p>" and "<p>_tensor"), two rows: peak_fma vs "<p>" and
//                  gemm vs "<p>_tensor"
//   memory         the best value of stream's triad_bandwidth (STREAM byte counting: 24 bytes per
//                  element for 8-byte elements) vs memory bandwidth
//   network        per collective op, "<op>_busbw" at the largest message size (parameter bytes,
//                  message_bytes or size_bytes) vs the network link's per-direction bandwidth
//   host transfer  the best h2d_bandwidth vs the host link's rx (towards the device) and the best
//                  d2h_bandwidth vs its tx
// "Best" is the highest record value; each record's value comes from its median sample. Which
// record is which figure is bench/figures.h's (shared with the roofline): the gpu_* benchmarks
// count like their CPU namesakes, and in a run with an accelerator only the records of its first
// accelerator count.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/bench/result_reader.h"
#include "xpuperf/spec/spec_sheet.h"

namespace xpuperf::analysis {

// Minimum achieved/spec per component, percent.
struct CheckThresholds {
  double compute = 90;
  double memory = 90;
  double network = 95;
  double host_transfer = 90;
};

enum class CheckVerdict {
  kPass,         // achieved >= threshold
  kFail,         // achieved < threshold
  kNoSpec,       // measured, but the sheet has no figure to compare with
  kNotMeasured,  // the sheet has a figure, the run has no measurement of it
  kUnstable,     // measured, but the figure is marked unstable: not judged (measured_from says why)
};

std::string_view CheckVerdictName(CheckVerdict verdict);  // "PASS", "FAIL", "no spec", ...

struct CheckRow {
  std::string component;  // "compute", "memory", "network", "host_transfer"
  std::string metric;     // "fp64 FLOP/s", "triad bandwidth", "all_reduce busbw", "h2d bandwidth"
  std::string unit;       // base unit of measured and spec: "FLOP/s" or "B/s"
  std::optional<double> measured;
  std::optional<double> spec;
  std::optional<double> achieved_percent;  // 100 * measured / spec when both are known
  double threshold_percent = 0;
  CheckVerdict verdict = CheckVerdict::kNotMeasured;
  // Which measurement gave `measured` (benchmark, parameters, results.jsonl line), the spec
  // figure's source, or why a side is missing.
  std::string measured_from;
  std::string spec_from;
};

struct CheckReport {
  std::string sheet_device;
  std::string sheet_source;  // the file, or "computed from this machine"
  std::string run_device;    // the run's device model
  std::vector<CheckRow> rows;
  bool Passed() const;  // no row is kFail
};

// Compares the records of one run with `sheet`. Rows come in component order (compute, memory,
// network, host_transfer); a component with neither a measurement nor a spec figure still gets one
// "not measured" row, which names the run's skip reason where there is one ("unsupported: no
// AVX512_BF16"). Records whose unit is not a known throughput unit are ignored.
CheckReport CheckAgainstSpec(const bench::ResultDirectory& run, const spec::SpecSheet& sheet,
                             const CheckThresholds& thresholds = {});

// The scale of a throughput unit to base units ("GFLOP/s" -> 1e9, "GB/s" -> 1e9, "GiB/s" -> 2^30,
// "MB/s" -> 1e6, "TFLOP/s" -> 1e12, "B/s" and "FLOP/s" -> 1), or nullopt for anything else.
std::optional<double> ThroughputUnitScale(std::string_view unit);

// "k=4096 m=256 precision=fp32": a record's parameters in one line, keys sorted.
std::string FormatParameters(const nlohmann::json& parameters);

nlohmann::json ToJson(const CheckReport& report);

}  // namespace xpuperf::analysis
