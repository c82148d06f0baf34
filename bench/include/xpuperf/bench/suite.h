// Suites: YAML files that list benchmarks, their sweep points and the sampling settings.
//
//   name: quick
//   description: whole machine in well under two minutes on 2 cores
//   sampling: {warmup_samples: 1, samples: 5, min_sample_seconds: 0.01}
//   benchmarks:
//     - benchmark: peak_fma
//       sweep: [{precision: fp64}, {precision: fp32}]   # optional; default: the benchmark's own
//       sampling: {samples: 3}                          # optional per-benchmark override
//       devices: [tpu, gpu]                             # optional: the device classes it is for
//
// `devices` makes per-device-class variants of a benchmark's sweep: an entry runs only on a device
// of a class it names (Benchmark::DeviceClass), so one suite can size its points for a TPU and,
// in another entry of the same benchmark, for XLA's CPU device. Without it an entry is for every
// class.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/bench/registry.h"
#include "xpuperf/bench/sampler.h"
#include "xpuperf/core/status.h"

namespace xpuperf::bench {

struct SuiteEntry {
  std::string benchmark;
  std::vector<nlohmann::json> sweep;        // empty: the benchmark's default_sweep
  SamplingOptions sampling;                 // the suite's, with this entry's overrides
  std::vector<std::string> device_classes;  // empty: every class; else of "tpu", "gpu", "cpu"
  int line = 0;                             // 1-based line in the suite file

  bool IsFor(const std::string& device_class) const;
};

// "tpu", "gpu" or "cpu".
bool IsDeviceClass(std::string_view name);

struct Suite {
  std::string name;
  std::string description;
  SamplingOptions sampling;
  std::vector<SuiteEntry> entries;
};

// Parses suite YAML. kParse with "<source>:<line>: <what is wrong>" for malformed YAML, a missing
// or mistyped field, or an unknown key.
Result<Suite> ParseSuite(std::string_view yaml, std::string_view source);

// kNotFound with "<suite>:<line>: unknown benchmark 'x' (known: ...)" for names not in registry.
Status ValidateSuite(const Suite& suite, const BenchmarkRegistry& registry);

// The suites compiled in from bench/suites/*.yaml: name -> YAML text.
const std::map<std::string, std::string>& BuiltinSuites();

// A built-in suite by name, or a YAML file when name_or_path contains '/' or ends in .yaml.
// kNotFound naming the built-in suites; kIo for an unreadable file.
Result<Suite> LoadSuite(const std::string& name_or_path);

}  // namespace xpuperf::bench
