// `xpuperf roofline` and `xpuperf diagnose`: ceilings from a benchmark result directory, workload
// points under them, verdicts and advice; text, JSON, SVG and HTML output.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

namespace xpuperf::roofline {

struct RooflineOptions {
  std::string results_dir;    // a directory written by `xpuperf bench run`; may be empty with trace
  std::string workload_file;  // YAML/JSON workload; empty = none
  // A profiler trace (file or directory of per-rank traces): its GEMMs with recorded shapes become
  // points, its deviceProperties select the spec sheet, and diagnose shows its findings.
  std::string trace;
  int top = 20;  // at most this many GEMM points of the trace, by kernel time
  // One point from the command line (used when flops, bytes, host or collective bytes is given).
  std::optional<double> flops;
  std::optional<double> bytes;
  std::optional<double> host_bytes;
  std::optional<double> collective_bytes;
  std::optional<double> time_seconds;
  std::string dtype = "fp32";
  std::string name = "command line";
  // Spec sheet: a YAML file, a shipped sheet's name ("nvidia-a100-sxm-80gb") or device, "auto"
  // (the shipped sheet matching the device, if any) or "none". diagnose without a trace reads
  // "auto" as "none" (measured ceilings only).
  std::string spec = "auto";
  std::string svg;   // write the roofline SVG here
  std::string html;  // write the HTML report here
  bool json = false;
};

// Prints ceilings, verdicts, advice (text or --json) and writes --svg/--html atomically.
int RunRoofline(const RooflineOptions& options, std::ostream& out, std::ostream& err);
// Verdicts and advice only; needs a workload (--workload or counts) or a trace. With a trace it
// also prints the trace's bottleneck findings (JSON: trace_findings).
int RunDiagnose(const RooflineOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xpuperf::roofline
