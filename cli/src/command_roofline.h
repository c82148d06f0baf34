// `xpuperf roofline` and `xpuperf diagnose`: ceilings from a benchmark result directory, workload
// points under them, verdicts and advice; text, JSON, SVG and HTML output.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

namespace xpuperf::cli {

struct RooflineOptions {
  std::string results_dir;    // a directory written by `xpuperf bench run`
  std::string workload_file;  // YAML/JSON workload; empty = none
  // One point from the command line (used when flops, bytes, host or collective bytes is given).
  std::optional<double> flops;
  std::optional<double> bytes;
  std::optional<double> host_bytes;
  std::optional<double> collective_bytes;
  std::optional<double> time_seconds;
  std::string dtype = "fp32";
  std::string name = "command line";
  // Spec sheet: a YAML file, "auto" (the shipped sheet matching the device, if any) or "none".
  std::string spec = "auto";
  std::string svg;   // write the roofline SVG here
  std::string html;  // write the HTML report here
  bool json = false;
};

// Prints ceilings, verdicts, advice (text or --json) and writes --svg/--html atomically.
int RunRoofline(const RooflineOptions& options, std::ostream& out, std::ostream& err);
// Verdicts and advice only; needs a workload (--workload or counts).
int RunDiagnose(const RooflineOptions& options, std::ostream& out, std::ostream& err);

}  // namespace xpuperf::cli
