// The backend interface and the registry that discovers backends at run time.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/clock.h"
#include "xpuperf/core/device.h"
#include "xpuperf/core/sample.h"
#include "xpuperf/core/status.h"

namespace xpuperf {

struct BackendOptions {
  // Prefix for every system path a backend reads ("/proc/stat" becomes root + "/proc/stat"); tests
  // point it at recorded trees.
  std::string root = "/";
  // Processes whose CPU and memory are reported as process_* metrics.
  std::vector<int> pids;
  // Never null; outlives the backend.
  const Clock* clock = &SystemClock::Instance();
  // True when the user asked for this backend by name (`--backend tpu`): a backend whose runtime is
  // not reachable then fails to open with the reason instead of opening with no data.
  bool explicitly_requested = false;
};

// A source of devices and metrics. Rate metrics (duty cycle, power) are computed between
// consecutive Collect() calls; the first snapshot is taken when the backend is opened. Not
// thread-safe: one thread drives a backend.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  virtual const std::vector<Device>& devices() const = 0;
  // Catalog metrics this backend maps (it may still report kUnsupported for some on this machine).
  virtual std::vector<std::string_view> metrics() const = 0;
  // Readings for every requested metric on every device (an empty list means all metrics).
  // Always one Reading per (metric, device): failures are readings with a reason, not errors.
  virtual std::vector<Reading> Collect(const std::vector<std::string>& metric_names) = 0;
};

// Creates a backend, or says why it cannot run here (kUnsupported/kUnavailable with a reason such
// as "libnvidia-ml.so.1 not found").
using BackendFactory = std::function<Result<std::unique_ptr<Backend>>(const BackendOptions&)>;

// Thread-safe. Factories run outside the registry lock.
class BackendRegistry {
 public:
  void Register(std::string name, std::string description, BackendFactory factory);
  std::vector<std::string> Names() const;
  std::string Description(std::string_view name) const;
  bool Has(std::string_view name) const;
  Result<std::unique_ptr<Backend>> Open(std::string_view name, const BackendOptions& options) const;

 private:
  struct Entry {
    std::string name;
    std::string description;
    BackendFactory factory;
  };
  mutable std::mutex mutex_;
  std::vector<Entry> entries_;
};

}  // namespace xpuperf
