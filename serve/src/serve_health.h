// The health verdicts as series of `serve` (health_series.h): evaluated over the exporter's latest
// collections and the kernel log followed since start, off the scrape path (Refresh() from serve's
// loop); the series provider hands out the last result. Thread-safe.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "xpuperf/exporter/exporter.h"
#include "xpuperf/health/kernel_log.h"

namespace xpuperf::serve {

class ServeHealth {
 public:
  // Registers the "health" series provider on `exp`, which must outlive this object's Refresh
  // calls; `expect` as `health --expect`.
  static std::shared_ptr<ServeHealth> Start(exporter::Exporter& exp, const std::string& root,
                                            std::optional<int> expect, std::string hostname);
  void Refresh();
  std::vector<exporter::MetricFamily> Families() const;

 private:
  ServeHealth(exporter::Exporter& exp, const std::string& root, std::optional<int> expect,
              std::string hostname);
  exporter::Exporter& exp_;
  std::string root_;
  std::optional<int> expect_;
  std::string hostname_;
  health::KernelLogWatch kernel_log_;  // Refresh's thread only
  mutable std::mutex mutex_;
  std::vector<exporter::MetricFamily> families_;
};

}  // namespace xpuperf::serve
