#include "xpuperf/exporter/exporter.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>

#include "backend_collector.h"
#include "snapshot_builder.h"

namespace xpuperf::exporter {

class Exporter::Impl {
 public:
  explicit Impl(ExporterOptions options)
      : options_(std::move(options)),
        history_(
            static_cast<size_t>(std::ceil(options_.history_seconds / options_.interval_seconds)) +
            1) {}

  ~Impl() {
    // Collectors first: no callback reaches a half-destroyed Impl.
    for (auto& c : collectors_) c->Stop(2);
  }

  ExporterOptions options_;
  SnapshotHistory history_;
  std::vector<std::unique_ptr<BackendCollector>> collectors_;
  std::vector<BackendStatus> unavailable_;

  mutable std::mutex hooks_mutex_;
  std::vector<std::pair<std::string, SeriesProvider>> providers_;
  std::vector<SnapshotListener> listeners_;

  mutable std::mutex latest_mutex_;
  std::shared_ptr<const Snapshot> latest_;
  std::vector<DeviceState> devices_;
  std::vector<EnergyState> energy_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<uint64_t> dropped_families_{0};
  std::mutex refresh_mutex_;     // one assembly at a time keeps snapshots in time order
  int64_t last_history_ns_ = 0;  // guarded by refresh_mutex_

  void Refresh() {
    std::lock_guard<std::mutex> refresh(refresh_mutex_);
    BuildInput input;
    input.now_ns = options_.backend.clock->WallNs();
    input.hostname = options_.hostname;
    input.metrics = options_.metrics;
    for (const auto& c : collectors_) input.collectors.push_back(c->state());
    input.attribution = &options_.attribution;
    input.jobs = &options_.jobs;
    std::vector<SnapshotListener> listeners;
    {
      std::lock_guard<std::mutex> lock(hooks_mutex_);
      for (const auto& [name, provider] : providers_) {
        for (MetricFamily& f : provider()) input.extra.push_back(std::move(f));
      }
      listeners = listeners_;
    }
    BuildOutput built = BuildSnapshot(input);
    dropped_families_ += built.dropped_extra_families;
    MetricFamily dropped{"xpuperf_exporter_dropped_families_total",
                         "Families from series providers refused because their name was taken "
                         "or malformed",
                         FamilyType::kCounter,
                         {ScalarPoint{{}, static_cast<double>(dropped_families_.load())}},
                         {}};
    built.snapshot.families.push_back(std::move(dropped));
    auto snapshot = std::make_shared<const Snapshot>(std::move(built.snapshot));
    {
      std::lock_guard<std::mutex> lock(latest_mutex_);
      latest_ = snapshot;
      devices_ = std::move(built.devices);
      energy_ = std::move(built.energy);
    }
    ++generation_;
    // Every backend's collection assembles a snapshot; the history keeps one per interval.
    const auto interval_ns = static_cast<int64_t>(options_.interval_seconds * 1e9);
    if (snapshot->timestamp_ns - last_history_ns_ >= interval_ns * 9 / 10) {
      last_history_ns_ = snapshot->timestamp_ns;
      history_.Append(snapshot);
    }
    for (const SnapshotListener& listener : listeners) listener(snapshot);
  }
};

Exporter::Exporter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Exporter::~Exporter() = default;

Result<std::unique_ptr<Exporter>> Exporter::Start(ExporterOptions options) {
  if (options.registry == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument, "exporter needs a backend registry");
  }
  if (!(options.interval_seconds >= 0.05 && options.interval_seconds <= 3600)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--interval must be between 0.05 and 3600 seconds");
  }
  if (options.deadline_seconds == 0) {
    options.deadline_seconds = std::max(2 * options.interval_seconds, 2.0);
  }
  if (!(options.deadline_seconds > 0 && options.deadline_seconds <= 3600)) {
    return MakeError(ErrorCode::kInvalidArgument, "--deadline must be between 0 and 3600 seconds");
  }
  for (const std::string& m : options.metrics) {
    if (FindMetric(m) == nullptr) {
      return MakeError(ErrorCode::kNotFound,
                       "unknown metric '" + m + "' (`xpuperf metrics --list` shows the catalog)");
    }
  }
  const bool explicit_backends = !options.backends.empty();
  std::vector<std::string> names = explicit_backends ? options.backends : options.registry->Names();
  for (const std::string& name : names) {
    if (!options.registry->Has(name)) {
      return MakeError(ErrorCode::kNotFound, "unknown backend '" + name + "'");
    }
  }
  // Open every backend in parallel: a runtime that takes its whole deadline to answer delays
  // only itself.
  std::vector<std::future<Result<std::unique_ptr<Session>>>> opening;
  const bool has_cpu = std::find(names.begin(), names.end(), "cpu") != names.end();
  for (const std::string& name : names) {
    SessionOptions session;
    session.backend = options.backend;
    session.backends = {name};
    if (name == (has_cpu ? std::string("cpu") : names.front())) session.recorder = options.recorder;
    opening.push_back(std::async(std::launch::async, [&options, session]() mutable {
      return Session::Open(*options.registry, std::move(session));
    }));
  }
  auto impl = std::make_unique<Impl>(options);
  Impl* raw = impl.get();
  std::vector<std::pair<std::string, std::unique_ptr<Session>>> sessions;
  for (size_t i = 0; i < names.size(); ++i) {
    auto session = opening[i].get();
    if (!session.ok()) {
      if (explicit_backends) return session.error();
      raw->unavailable_.push_back(BackendStatus{names[i], false, session.error().message});
      continue;
    }
    sessions.emplace_back(names[i], std::move(session).value());
  }
  if (sessions.empty()) {
    return MakeError(ErrorCode::kUnavailable, "no backend can run here");
  }
  for (auto& [name, session] : sessions) {
    raw->collectors_.push_back(std::make_unique<BackendCollector>(
        name, std::move(session), options.metrics, options.interval_seconds,
        options.deadline_seconds, *options.backend.clock, [raw] { raw->Refresh(); }));
  }
  raw->Refresh();  // the exporter's own series before the first collection
  for (auto& c : raw->collectors_) c->Start();
  return std::unique_ptr<Exporter>(new Exporter(std::move(impl)));
}

void Exporter::AddSeriesProvider(std::string name, SeriesProvider provider) {
  std::lock_guard<std::mutex> lock(impl_->hooks_mutex_);
  impl_->providers_.emplace_back(std::move(name), std::move(provider));
}

void Exporter::AddSnapshotListener(SnapshotListener listener) {
  std::lock_guard<std::mutex> lock(impl_->hooks_mutex_);
  impl_->listeners_.push_back(std::move(listener));
}

std::shared_ptr<const Snapshot> Exporter::Latest() const {
  std::lock_guard<std::mutex> lock(impl_->latest_mutex_);
  return impl_->latest_;
}

uint64_t Exporter::generation() const { return impl_->generation_.load(); }
const SnapshotHistory& Exporter::history() const { return impl_->history_; }
double Exporter::interval_seconds() const { return impl_->options_.interval_seconds; }
void Exporter::Refresh() { impl_->Refresh(); }

HealthReport Exporter::Health() const {
  HealthReport report;
  report.healthy = true;
  const int64_t now = impl_->options_.backend.clock->WallNs();
  const auto limit_ns = static_cast<int64_t>(3 * impl_->options_.interval_seconds * 1e9);
  for (const auto& c : impl_->collectors_) {
    CollectorSnapshot s = c->state();
    CollectorState state{s.backend, s.up, s.reason, s.last_success_ns, s.last_duration_seconds};
    const bool fresh = s.up && s.last_success_ns > 0 && now - s.last_success_ns <= limit_ns;
    if (s.up && !fresh) state.reason = "no collection within 3 intervals";
    state.up = fresh;
    report.healthy = report.healthy && fresh;
    report.collectors.push_back(std::move(state));
  }
  {
    std::lock_guard<std::mutex> lock(impl_->latest_mutex_);
    report.devices = impl_->devices_;
    report.energy = impl_->energy_;
  }
  report.unavailable = impl_->unavailable_;
  return report;
}

RawSnapshot Exporter::Raw() const {
  RawSnapshot raw;
  raw.timestamp_ns = impl_->options_.backend.clock->WallNs();
  for (const auto& c : impl_->collectors_) {
    CollectorSnapshot s = c->state();
    raw.backends.push_back(BackendStatus{s.backend, s.up, s.reason});
    if (s.latest == nullptr) continue;
    raw.window_seconds = std::max(raw.window_seconds, s.latest->window_seconds);
    raw.devices.insert(raw.devices.end(), s.latest->devices.begin(), s.latest->devices.end());
    raw.readings.insert(raw.readings.end(), s.latest->readings.begin(), s.latest->readings.end());
  }
  raw.backends.insert(raw.backends.end(), impl_->unavailable_.begin(), impl_->unavailable_.end());
  return raw;
}

}  // namespace xpuperf::exporter
