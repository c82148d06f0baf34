// libtpu's monitoring SDK as libtpu gives it: every metric it lists, its description, its raw
// values and where xpuperf's catalog takes it (`xpuperf metrics --tpu-sdk`).
#pragma once

#include <string>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/tpu/tpu_backend.h"

namespace xpuperf::tpu {

struct TpuSdkMetric {
  std::string name;         // libtpu's name (tensorcore_util)
  std::string catalog;      // xpuperf's metric, empty for metrics shown only as libtpu gives them
  std::string note;         // how it maps (units, labels), or why it is not mapped
  std::string description;  // libtpu's own, once it answered
  std::vector<std::string> data;  // libtpu's values, as text
  std::string state;              // "ok", "no_data" or "unsupported"
  std::string reason;             // why there are no values
};

struct TpuSdkListing {
  std::string python;          // the interpreter that read it
  std::string libtpu_version;  // empty when libtpu could not be imported
  std::vector<TpuSdkMetric> metrics;
};

// Reads every metric once (waiting at most options.first_answer_seconds). An error when the SDK
// cannot be read at all (no Python, no libtpu, a crash on import), with the reason; a libtpu that
// lists its metrics but gives no values lists them with libtpu's reason (its last message), as
// "unsupported" when `root` has no TPU chip, else "no_data".
Result<TpuSdkListing> ReadTpuSdk(const TpuSdkOptions& options, const std::string& root = "/");

}  // namespace xpuperf::tpu
