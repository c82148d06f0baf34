// One backend's collection thread: samples its own Session every interval, so a slow runtime or a
// blocking vendor call delays nobody else, and keeps the latest complete collection.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "energy_audit.h"
#include "xpuperf/core/clock.h"
#include "xpuperf/core/session.h"

namespace xpuperf::exporter {

// One complete Collect of a backend. Immutable once published.
struct Collection {
  int64_t wall_ns = 0;          // when it finished, ns since the Unix epoch
  double duration_seconds = 0;  // how long the Collect took
  double window_seconds = 0;    // time since the previous Collect (the rate window)
  std::vector<Device> devices;
  std::vector<Reading> readings;  // energy_joules as audited (energy_audit.h)
  std::vector<EnergySource> energy_sources;
};

struct CollectorSnapshot {
  std::string backend;
  bool up = false;
  std::string reason;
  int64_t last_success_ns = 0;
  double last_duration_seconds = 0;
  // The latest collection; null while down (never served stale).
  std::shared_ptr<const Collection> latest;
};

// Thread-safe: state() may be called from any thread while the collection thread runs.
class BackendCollector {
 public:
  BackendCollector(std::string backend, std::unique_ptr<Session> session,
                   std::vector<std::string> metrics, double interval_seconds,
                   double deadline_seconds, const Clock& clock, std::function<void()> on_collected);
  ~BackendCollector();

  void Start();
  // Asks the thread to stop and waits up to `wait_seconds` for it. A thread that is still inside
  // a vendor call after that is detached (it owns its session, so nothing dangles) and the
  // function returns false.
  bool Stop(double wait_seconds);

  // The state now, with the deadline applied: a collection running past the deadline reports the
  // backend down.
  CollectorSnapshot state() const;
  const std::string& backend() const { return backend_; }

 private:
  struct Shared;  // what the thread and the readers share; outlives a detached thread
  void Loop();

  std::string backend_;
  std::shared_ptr<Shared> shared_;
  std::thread thread_;
};

}  // namespace xpuperf::exporter
