#include "xpuperf/core/session.h"

#include <algorithm>

#include "xpuperf/core/error_context.h"
#include "xpuperf/core/metric_catalog.h"

namespace xpuperf {

Result<std::unique_ptr<Session>> Session::Open(const BackendRegistry& registry,
                                               SessionOptions options) {
  std::unique_ptr<Session> session(new Session());
  const bool explicit_backends = !options.backends.empty();
  std::vector<std::string> names = explicit_backends ? options.backends : registry.Names();
  for (const std::string& name : names) {
    if (!registry.Has(name)) {
      std::string known;
      for (const std::string& n : registry.Names()) known += (known.empty() ? "" : ", ") + n;
      std::string message = "unknown backend '";
      message.append(name).append("' (available in this build: ").append(known).append(")");
      return MakeError(ErrorCode::kNotFound, message);
    }
    BackendOptions backend_options = options.backend;
    backend_options.explicitly_requested = explicit_backends;
    auto backend = registry.Open(name, backend_options);
    if (!backend.ok()) {
      if (explicit_backends) {
        return WithContext(backend.error(), name + " backend");
      }
      session->statuses_.push_back({name, false, backend.error().message});
      continue;
    }
    session->statuses_.push_back({name, true, {}});
    for (const Device& d : (*backend)->devices()) session->devices_.push_back(d);
    session->open_.push_back(std::move(backend).value());
  }
  session->options_ = std::move(options);
  return session;
}

std::vector<std::string> Session::metrics() const {
  std::vector<std::string> out;
  for (const MetricInfo& info : MetricCatalog()) {
    bool provided = false;
    for (const auto& backend : open_) {
      auto names = backend->metrics();
      provided = provided || std::find(names.begin(), names.end(), info.name) != names.end();
    }
    const bool recorded = options_.recorder != nullptr && (info.name == metrics::kOpExecutionTime ||
                                                           info.name == metrics::kTransferLatency ||
                                                           info.name == metrics::kQueueSize);
    if (provided || recorded) out.emplace_back(info.name);
  }
  return out;
}

namespace {
// Recorder data joins the backend's reading of the same metric and device.
void MergeRecorded(Reading& into, Reading&& recorded) {
  if (recorded.state != ReadingState::kOk) return;
  if (into.state != ReadingState::kOk) {
    into.state = ReadingState::kOk;
    into.reason.clear();
    into.samples.clear();
  }
  for (Sample& s : recorded.samples) into.samples.push_back(std::move(s));
}
}  // namespace

Result<std::vector<Reading>> Session::Collect(const std::vector<std::string>& metric_names,
                                              const std::vector<std::string>& device_ids) {
  for (const std::string& name : metric_names) {
    if (FindMetric(name) == nullptr) {
      return MakeError(ErrorCode::kNotFound, "unknown metric '" + name +
                                                 "' (`xpuperf metrics --list` shows the catalog)");
    }
  }
  // Every device to report on: the backends' devices, then devices that only the recorder has data
  // for (a workload recording under its own device name, or on "cpu0" where the cpu backend cannot
  // run), so that recorded data is never dropped for want of a backend.
  std::vector<std::string> all_devices;
  for (const Device& d : devices_) all_devices.push_back(d.id);
  if (options_.recorder != nullptr) {
    for (std::string& id : options_.recorder->Devices()) {
      if (std::find(all_devices.begin(), all_devices.end(), id) == all_devices.end()) {
        all_devices.push_back(std::move(id));
      }
    }
  }
  for (const std::string& id : device_ids) {
    if (std::find(all_devices.begin(), all_devices.end(), id) == all_devices.end()) {
      return MakeError(ErrorCode::kNotFound,
                       "unknown device '" + id + "' (`xpuperf devices` lists this host's devices)");
    }
  }
  auto wanted_metric = [&](std::string_view m) {
    return metric_names.empty() ||
           std::find(metric_names.begin(), metric_names.end(), m) != metric_names.end();
  };
  auto wanted_device = [&](std::string_view d) {
    return device_ids.empty() ||
           std::find(device_ids.begin(), device_ids.end(), d) != device_ids.end();
  };

  std::vector<Reading> readings;
  for (const auto& backend : open_) {
    for (Reading& r : backend->Collect(metric_names)) {
      if (wanted_device(r.device) && wanted_metric(r.metric)) readings.push_back(std::move(r));
    }
  }
  if (options_.recorder != nullptr) {
    const int64_t now = options_.backend.clock->WallNs();
    for (const std::string& device : all_devices) {
      if (!wanted_device(device)) continue;
      for (Reading& recorded : options_.recorder->Snapshot(device, now)) {
        if (!wanted_metric(recorded.metric)) continue;
        auto it = std::find_if(readings.begin(), readings.end(), [&](const Reading& r) {
          return r.metric == recorded.metric && r.device == device;
        });
        if (it == readings.end()) {
          readings.push_back(std::move(recorded));
        } else {
          MergeRecorded(*it, std::move(recorded));
        }
      }
    }
  }
  // Catalog order, then device order: stable output for tables and golden tests.
  auto metric_rank = [](std::string_view m) {
    auto catalog = MetricCatalog();
    for (size_t i = 0; i < catalog.size(); ++i) {
      if (catalog[i].name == m) return i;
    }
    return catalog.size();
  };
  auto device_rank = [&](std::string_view d) {
    return static_cast<size_t>(std::find(all_devices.begin(), all_devices.end(), d) -
                               all_devices.begin());
  };
  std::stable_sort(readings.begin(), readings.end(), [&](const Reading& a, const Reading& b) {
    const auto ka = std::make_pair(metric_rank(a.metric), device_rank(a.device));
    const auto kb = std::make_pair(metric_rank(b.metric), device_rank(b.device));
    return ka < kb;
  });
  return readings;
}

}  // namespace xpuperf
