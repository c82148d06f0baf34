// The node's last `xpuperf diag` as series (`serve --diag-results DIR/diag.json`), so a fleet sees
// which nodes failed their diagnostic and which test failed:
//   xpuperf_diag_passed{hostname, level}          1 every test passed, 0 one failed (absent for
//                                                  an interrupted diagnostic)
//   xpuperf_diag_timestamp_seconds{hostname}      when it ran
//   xpuperf_diag_test{hostname, test, device, status, code}
//                                                  0 pass, 1 unknown, 2 warn, 3 fail
// and xpuperf_diag_up (1 the file was read and parsed, 0 missing or malformed).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/exporter/bench_check_series.h"
#include "xpuperf/exporter/metric_family.h"

namespace xpuperf::exporter {

// Parses diag.json; kParse naming the field on a malformed document (at most 10000 tests). Pure:
// safe on any input (fuzzed).
Result<std::vector<MetricFamily>> DiagFamilies(std::string_view json_text,
                                               double file_mtime_seconds,
                                               const std::string& hostname);

class DiagResultsFile : public SeriesFile {
 public:
  DiagResultsFile(std::string path, std::string hostname);
};

}  // namespace xpuperf::exporter
