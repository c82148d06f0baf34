// One diagnostic test's outcome and the tests of each level.
#pragma once

#include <string>
#include <vector>

#include "xpuperf/core/session.h"
#include "xpuperf/diag/diag_command.h"
#include "xpuperf/health/verdict.h"

namespace xpuperf::diag {

struct DiagTest {
  std::string test;    // "deployment.device_nodes", "memory_pattern", "performance.compute"
  std::string device;  // a device id, or "node"
  health::Status status = health::Status::kUnknown;
  std::string code;  // "OK", "DEPLOY_DEVICE_NODE_DENIED", ...
  std::string evidence;
  double seconds = 0;
};

// Level 1: backends, device nodes, driver versions, --expect and the health verdicts.
std::vector<DiagTest> DeploymentTests(Session& session, const DiagOptions& options);
// Level 2's memory pattern test of host memory (and why device memory is not tested).
std::vector<DiagTest> MemoryPatternTests(const std::vector<Device>& devices,
                                         const DiagOptions& options);
// Level 2's performance gate: the quick suite's compute and memory benchmarks into
// DIR/bench, judged against the spec sheet as `bench check` does.
std::vector<DiagTest> PerformanceTests(const DiagOptions& options, const std::string& dir,
                                       std::ostream& err);
// Level 3: stress for --duration while the session is read every second.
std::vector<DiagTest> StressTests(Session& session, const DiagOptions& options, std::ostream& err);

}  // namespace xpuperf::diag
