// A session: the backends available on this machine, their devices, and one Collect over all of
// them merged with the in-process recorder. The entry point of the C++ SDK and of the C ABI.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "xpuperf/core/backend.h"
#include "xpuperf/core/recorder.h"

namespace xpuperf {

struct SessionOptions {
  BackendOptions backend;
  // Backends to open; empty = every registered backend that can run here.
  std::vector<std::string> backends;
  // In-process metrics merged into readings (op execution time, transfer latency, queue size); null
  // for none.
  const Recorder* recorder = nullptr;
};

struct BackendStatus {
  std::string name;
  bool available = false;
  std::string reason;  // why it is not available
};

// Not thread-safe.
class Session {
 public:
  // Fails only when a backend explicitly asked for cannot be opened, or the name is unknown.
  static Result<std::unique_ptr<Session>> Open(const BackendRegistry& registry,
                                               SessionOptions options);

  const std::vector<Device>& devices() const { return devices_; }
  const std::vector<BackendStatus>& backends() const { return statuses_; }
  // Metric names any open backend (or the recorder) provides, in catalog order.
  std::vector<std::string> metrics() const;
  // Validates names against the catalog (kNotFound for an unknown metric) and device ids
  // (kNotFound).
  Result<std::vector<Reading>> Collect(const std::vector<std::string>& metric_names,
                                       const std::vector<std::string>& device_ids = {});

 private:
  Session() = default;
  SessionOptions options_;
  std::vector<std::unique_ptr<Backend>> open_;
  std::vector<BackendStatus> statuses_;
  std::vector<Device> devices_;
};

}  // namespace xpuperf
