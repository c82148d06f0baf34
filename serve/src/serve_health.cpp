#include "serve_health.h"

#include "xpuperf/health/evaluate.h"
#include "xpuperf/serve/health_series.h"

namespace xpuperf::serve {

ServeHealth::ServeHealth(exporter::Exporter& exp, const std::string& root,
                         std::optional<int> expect, std::string hostname)
    : exp_(exp), root_(root), expect_(expect), hostname_(std::move(hostname)), kernel_log_(root) {}

std::shared_ptr<ServeHealth> ServeHealth::Start(exporter::Exporter& exp, const std::string& root,
                                                std::optional<int> expect, std::string hostname) {
  std::shared_ptr<ServeHealth> health(new ServeHealth(exp, root, expect, std::move(hostname)));
  health->Refresh();
  exp.AddSeriesProvider("health", [weak = std::weak_ptr<ServeHealth>(health)] {
    auto self = weak.lock();
    return self ? self->Families() : std::vector<exporter::MetricFamily>{};
  });
  return health;
}

void ServeHealth::Refresh() {
  kernel_log_.Poll();
  exporter::RawSnapshot raw = exp_.Raw();
  health::HealthInput input;
  input.devices = std::move(raw.devices);
  input.backends = std::move(raw.backends);
  input.readings = std::move(raw.readings);
  input.kernel_events = kernel_log_.Events();
  health::HealthOptions options;
  options.root = root_;
  options.expect = expect_;
  std::vector<exporter::MetricFamily> families =
      HealthFamilies(health::EvaluateHealth(input, options), hostname_);
  std::lock_guard lock(mutex_);
  families_ = std::move(families);
}

std::vector<exporter::MetricFamily> ServeHealth::Families() const {
  std::lock_guard lock(mutex_);
  return families_;
}

}  // namespace xpuperf::serve
