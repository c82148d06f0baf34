#include "serve_alerts.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <thread>

#include "xpuperf/alerts/notifier_thread.h"
#include "xpuperf/alerts/rule_engine.h"
#include "xpuperf/alerts/state_file.h"
#include "xpuperf/exporter/exposition.h"

namespace xpuperf::serve {

class ServeAlerts::Impl {
 public:
  Impl(std::vector<alerts::RuleFile> files, const ServeAlertOptions& options, double interval,
       std::ostream& log)
      : engine_(std::move(files)),
        restored_(Receivers(options), NotifierOptions(options, interval),
                  alerts::DefaultHttpPoster(10)),
        notifier_options_(NotifierOptions(options, interval)),
        state_file_(options.state_file),
        log_(log) {}

  static std::vector<alerts::ReceiverConfig> Receivers(const ServeAlertOptions& options) {
    std::vector<alerts::ReceiverConfig> out;
    for (size_t i = 0; i < options.alertmanagers.size(); ++i) {
      out.push_back({"alertmanager-" + std::to_string(i), alerts::ReceiverKind::kAlertmanager,
                     options.alertmanagers[i], "", "", "", ""});
    }
    for (size_t i = 0; i < options.webhooks.size(); ++i) {
      out.push_back({"webhook-" + std::to_string(i), alerts::ReceiverKind::kWebhook,
                     options.webhooks[i], "", "", "", ""});
    }
    return out;
  }
  static alerts::NotifierOptions NotifierOptions(const ServeAlertOptions& options,
                                                 double interval) {
    alerts::NotifierOptions n;
    n.resend_interval_ms = static_cast<int64_t>(options.resend_seconds * 1000);
    n.evaluation_interval_ms = static_cast<int64_t>(interval * 1000);
    n.external_url = options.external_url;
    return n;
  }

  Status Restore() {
    if (state_file_.empty()) return Status::Ok();
    auto saved = alerts::ReadAlertStateFile(state_file_);
    if (!saved.ok()) {
      if (saved.error().code == ErrorCode::kNotFound) return Status::Ok();
      return saved.error();
    }
    engine_.RestoreAlerts(saved->alerts);
    alerts::RestoreReceivers(saved->receivers, restored_);
    return Status::Ok();
  }

  // Each receiver's deliveries run on a thread of their own: evaluation never waits on a
  // receiver, and a receiver that hangs delays no other.
  void Start() {
    for (alerts::ReceiverState& receiver : restored_.receivers()) {
      alerts::Notifier one({receiver.config}, notifier_options_, alerts::DefaultHttpPoster(10));
      one.receivers()[0] = std::move(receiver);
      notifiers_.push_back(std::make_unique<alerts::NotifierThread>(std::move(one)));
    }
    worker_ = std::thread([this] { Run(); });
  }

  void Stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (const auto& notifier : notifiers_) notifier->Stop();  // cancels posts in flight
    if (worker_.joinable()) worker_.join();
  }

  void OnSnapshot(const std::shared_ptr<const exporter::Snapshot>& snapshot) {
    {
      std::lock_guard lock(mutex_);
      if (pending_.size() >= 8) pending_.pop_front();  // the worker is behind: keep the newest
      pending_.push_back(snapshot);
    }
    wake_.notify_one();
  }

  std::vector<exporter::MetricFamily> AlertFamilies() {
    std::lock_guard lock(exported_mutex_);
    return exported_;
  }

  size_t rule_count() const { return engine_.rule_count(); }

 private:
  void Run() {
    while (true) {
      std::shared_ptr<const exporter::Snapshot> snapshot;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || !pending_.empty(); });
        if (pending_.empty()) break;  // stopping
        snapshot = pending_.front();
        pending_.pop_front();
      }
      Process(*snapshot);
    }
    WriteState(last_t_ms_);
  }

  void Append(const std::string& name, const Labels& labels, double value, int64_t t_ms,
              std::set<std::string>& seen) {
    alerts::Labels series(std::vector<std::pair<std::string, std::string>>(labels.items()));
    series.Set(alerts::kMetricNameLabel, name);
    const std::string key = series.Key();
    seen.insert(key);
    live_[key] = series;
    source_.Append(series, {t_ms, value});
  }

  void Process(const exporter::Snapshot& snapshot) {
    const int64_t t_ms = snapshot.timestamp_ns / 1'000'000;
    if (t_ms <= last_t_ms_) return;  // samples of a series must come in time order
    last_t_ms_ = t_ms;
    std::set<std::string> seen;
    for (const exporter::MetricFamily& family : snapshot.families) {
      if (family.name == "xpuperf_alerts") continue;  // our own output
      for (const exporter::ScalarPoint& p : family.points) {
        Append(family.name, p.labels, p.value, t_ms, seen);
      }
      for (const exporter::HistogramPoint& h : family.histograms) {
        for (size_t i = 0; i < h.upper_bounds.size() && i < h.cumulative.size(); ++i) {
          Labels with_le = h.labels;
          with_le.Set("le", exporter::FormatBound(h.upper_bounds[i]));
          Append(family.name + "_bucket", with_le, static_cast<double>(h.cumulative[i]), t_ms,
                 seen);
        }
        Labels inf = h.labels;
        inf.Set("le", "+Inf");
        Append(family.name + "_bucket", inf, static_cast<double>(h.count), t_ms, seen);
        Append(family.name + "_sum", h.labels, h.sum, t_ms, seen);
        Append(family.name + "_count", h.labels, static_cast<double>(h.count), t_ms, seen);
      }
    }
    // A series gone from this snapshot (a lost device) ends here, as a scrape would mark it.
    for (auto it = live_.begin(); it != live_.end();) {
      if (seen.contains(it->first)) {
        ++it;
        continue;
      }
      source_.Append(it->second, {t_ms, alerts::StaleNaN()});
      it = live_.erase(it);
    }
    source_.Trim(t_ms - kHistoryMs);
    for (const alerts::RuleEvalError& e : engine_.EvaluateAll(source_, t_ms)) {
      log_ << "xpuperf serve: error: rule " << e.rule << ": " << e.message << "\n";
    }
    const std::vector<const alerts::Alert*> alerts = engine_.Alerts();
    for (const auto& notifier : notifiers_) notifier->Update(alerts, t_ms);
    Export();
    WriteState(t_ms);
  }

  void Export() {
    exporter::MetricFamily family;
    family.name = "xpuperf_alerts";
    family.help =
        "Active alerts of the built-in rule engine (1 per pending or firing alert), as "
        "Prometheus' ALERTS";
    family.type = exporter::FamilyType::kGauge;
    for (const alerts::Alert* a : engine_.Alerts()) {
      if (a->state == alerts::AlertState::kInactive) continue;
      Labels labels;
      for (const auto& [k, v] : a->labels.items()) labels.Set(k, v);
      labels.Set("alertstate", alerts::AlertStateName(a->state));
      family.points.push_back({labels, 1});
    }
    std::lock_guard lock(exported_mutex_);
    exported_.clear();
    if (!family.points.empty()) exported_.push_back(std::move(family));
  }

  void WriteState(int64_t t_ms) {
    if (state_file_.empty()) return;
    alerts::AlertStateSnapshot snapshot;
    snapshot.written_at_ms = t_ms;
    for (const alerts::Alert* a : engine_.Alerts()) snapshot.alerts.push_back(*a);
    for (const auto& notifier : notifiers_) {
      for (alerts::ReceiverState& r : notifier->receivers())
        snapshot.receivers.push_back(std::move(r));
    }
    if (Status s = alerts::WriteAlertStateFile(state_file_, snapshot); !s.ok()) {
      log_ << "xpuperf serve: error: " << s.error().message << "\n";
    }
  }

  // The longest range a rule may read: 1 h.
  static constexpr int64_t kHistoryMs = int64_t{60} * 60 * 1000;

  alerts::RuleEngine engine_;
  alerts::Notifier restored_;  // the receivers as restored, until Start() hands them over
  alerts::NotifierOptions notifier_options_;
  std::vector<std::unique_ptr<alerts::NotifierThread>> notifiers_;  // one per receiver
  alerts::MemorySeriesSource source_;
  std::map<std::string, alerts::Labels> live_;
  std::string state_file_;
  std::ostream& log_;
  int64_t last_t_ms_ = 0;

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<const exporter::Snapshot>> pending_;
  bool stop_ = false;
  std::thread worker_;

  std::mutex exported_mutex_;
  std::vector<exporter::MetricFamily> exported_;
};

Result<std::unique_ptr<ServeAlerts>> ServeAlerts::Start(exporter::Exporter& exporter,
                                                        const ServeAlertOptions& options,
                                                        std::ostream& log) {
  std::vector<alerts::RuleFile> files;
  for (const std::string& path : options.rule_files) {
    XPUPERF_ASSIGN_OR_RETURN(alerts::RuleFile file, alerts::LoadRuleFile(path));
    files.push_back(std::move(file));
  }
  auto impl = std::make_shared<Impl>(std::move(files), options, exporter.interval_seconds(), log);
  XPUPERF_RETURN_IF_ERROR(impl->Restore());
  impl->Start();
  // The exporter keeps these callbacks for its lifetime; weak pointers make them no-ops after
  // ServeAlerts is gone.
  std::weak_ptr<Impl> weak = impl;
  exporter.AddSnapshotListener([weak](const std::shared_ptr<const exporter::Snapshot>& s) {
    if (auto self = weak.lock()) self->OnSnapshot(s);
  });
  exporter.AddSeriesProvider("alerts", [weak]() -> std::vector<exporter::MetricFamily> {
    if (auto self = weak.lock()) return self->AlertFamilies();
    return {};
  });
  return std::unique_ptr<ServeAlerts>(new ServeAlerts(std::move(impl)));
}

ServeAlerts::~ServeAlerts() { impl_->Stop(); }

size_t ServeAlerts::rule_count() const { return impl_->rule_count(); }

}  // namespace xpuperf::serve
