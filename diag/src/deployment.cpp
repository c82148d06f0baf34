// Level 1: what must be in place before a device takes work.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "diag_test.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/core/sysfs_file.h"
#include "xpuperf/health/evaluate.h"
#include "xpuperf/health/kernel_log.h"

namespace xpuperf::diag {
namespace {

using health::Status;

DiagTest Test(std::string test, std::string device, Status status, std::string code,
              std::string evidence) {
  return DiagTest{std::move(test), std::move(device),   status,
                  std::move(code), std::move(evidence), 0};
}

bool Requested(const DiagOptions& options, const std::string& backend) {
  return std::find(options.common.backends.begin(), options.common.backends.end(), backend) !=
         options.common.backends.end();
}

// The device files a backend's devices are used through.
std::vector<std::string> DeviceNodes(const Device& d) {
  if (d.backend == "nvidia")
    return {"/dev/nvidiactl", "/dev/nvidia-uvm", fmt::format("/dev/nvidia{}", d.index)};
  if (d.backend == "amd") return {"/dev/kfd"};
  if (d.backend == "tpu") return {fmt::format("/dev/accel{}", d.index)};
  return {};
}

DiagTest DeviceNodesTest(const Device& d, const std::string& root) {
  std::vector<std::string> missing, denied, fine;
  for (const std::string& node : DeviceNodes(d)) {
    const std::string path = JoinRoot(root, node);
    if (!PathExists(path)) {
      missing.push_back(path);
    } else if (access(path.c_str(), R_OK | W_OK) != 0) {
      denied.push_back(path);
    } else {
      fine.push_back(path);
    }
  }
  if (!missing.empty()) {
    return Test("deployment.device_nodes", d.id, Status::kFail, "DEPLOY_DEVICE_NODE_MISSING",
                fmt::format("missing: {}", fmt::join(missing, ", ")));
  }
  if (!denied.empty()) {
    return Test(
        "deployment.device_nodes", d.id, Status::kFail, "DEPLOY_DEVICE_NODE_DENIED",
        fmt::format("not readable and writable by uid {}: {}", getuid(), fmt::join(denied, ", ")));
  }
  return Test("deployment.device_nodes", d.id, Status::kPass, "OK",
              fmt::format("read-write: {}", fmt::join(fine, ", ")));
}

DiagTest DriverVersionTest(const std::string& backend, const std::string& root) {
  const std::string file = backend == "nvidia"  ? "/proc/driver/nvidia/version"
                           : backend == "amd"   ? "/sys/module/amdgpu/version"
                           : backend == "intel" ? "/sys/module/i915/version"
                                                : "";
  if (file.empty()) {
    return Test("deployment.driver_version", backend, Status::kUnknown, "UNKNOWN",
                "no driver version file for the " + backend + " backend");
  }
  auto text = ReadTrimmedFile(JoinRoot(root, file));
  if (!text.ok()) {
    return Test("deployment.driver_version", backend, Status::kUnknown, "UNKNOWN",
                text.error().message);
  }
  return Test("deployment.driver_version", backend, Status::kPass, "OK", *text);
}

// NVIDIA's persistence mode: without it the driver tears the GPU's state down whenever no client
// holds it (DCGM's deployment check warns the same way).
DiagTest PersistenceModeTest(const Device& d, const std::vector<Reading>& readings) {
  const std::string test = "deployment.persistence_mode";
  for (const Reading& r : readings) {
    if (r.device != d.id || r.metric != metrics::kDeviceMode) continue;
    if (r.state != ReadingState::kOk)
      return Test(test, d.id, Status::kUnknown, "UNKNOWN", r.reason);
    for (const Sample& s : r.samples) {
      if (s.is_distribution() || s.labels.Get(labels::kMode) != "persistence") continue;
      if (s.scalar() > 0) return Test(test, d.id, Status::kPass, "OK", "persistence mode on");
      return Test(test, d.id, Status::kWarn, "DEPLOY_PERSISTENCE_MODE_OFF",
                  fmt::format("persistence mode off: the driver tears the GPU down whenever no "
                              "program holds it (slow starts, lost settings); run "
                              "nvidia-persistenced or `nvidia-smi -i {} -pm 1`",
                              d.index));
    }
    return Test(test, d.id, Status::kUnknown, "UNKNOWN", "the driver gives no persistence mode");
  }
  return Test(test, d.id, Status::kUnknown, "UNKNOWN", "no device_mode_enabled reading");
}

}  // namespace

std::vector<DiagTest> DeploymentTests(Session& session, const DiagOptions& options) {
  std::vector<DiagTest> tests;
  std::vector<std::string> available, absent;
  for (const BackendStatus& b : session.backends()) {
    if (b.available) {
      available.push_back(b.name);
    } else if (Requested(options, b.name)) {
      tests.push_back(Test("deployment.backend", b.name, Status::kFail,
                           "DEPLOY_BACKEND_UNAVAILABLE", b.reason));
    } else {
      absent.push_back(b.name + " (" + b.reason + ")");
    }
  }
  tests.push_back(
      Test("deployment.backends", "node", Status::kPass, "OK",
           fmt::format("available: {}; not on this node: {}",
                       available.empty() ? "none" : fmt::format("{}", fmt::join(available, ", ")),
                       absent.empty() ? "none" : fmt::format("{}", fmt::join(absent, "; ")))));
  std::vector<std::string> drivers;
  for (const Device& d : session.devices()) {
    if (d.backend == "cpu" || d.is_partition()) continue;
    tests.push_back(DeviceNodesTest(d, options.common.root));
    if (std::find(drivers.begin(), drivers.end(), d.backend) == drivers.end()) {
      drivers.push_back(d.backend);
      tests.push_back(DriverVersionTest(d.backend, options.common.root));
    }
  }
  // Every health verdict; a failing one fails the diagnostic.
  auto readings = session.Collect({});
  if (!readings.ok()) {
    tests.push_back(
        Test("health", "node", Status::kFail, "HEALTH_UNREADABLE", readings.error().message));
    return tests;
  }
  for (const Device& d : session.devices()) {
    if (d.backend == "nvidia" && !d.is_partition())
      tests.push_back(PersistenceModeTest(d, *readings));
  }
  health::HealthInput input;
  input.devices = session.devices();
  input.backends = session.backends();
  input.readings = std::move(*readings);
  input.kernel_events = health::ReadKernelLog(options.common.root);
  health::HealthOptions rules;
  rules.root = options.common.root;
  rules.expect = options.expect;
  for (const health::Verdict& v : health::EvaluateHealth(input, rules).verdicts) {
    tests.push_back(Test(fmt::format("health.{}", health::SubsystemName(v.subsystem)), v.device,
                         v.status, v.code, v.evidence));
  }
  return tests;
}

}  // namespace xpuperf::diag
