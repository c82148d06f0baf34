#include <unistd.h>

#include <algorithm>
#include <ostream>

#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/clock.h"
#include "xpuperf/core/host_name.h"
#include "xpuperf/render/terminal_escape.h"
#include "xpuperf/telemetry/commands.h"
#include "xpuperf/telemetry/session_factory.h"
#include "xpuperf/telemetry/views.h"

namespace xpuperf::telemetry {

namespace {

Result<MetricsSnapshot> Observe(Session& session, const MetricsOptions& options,
                                int64_t& last_collect_ns) {
  XPUPERF_ASSIGN_OR_RETURN(auto readings, session.Collect(options.metrics, options.devices));
  const auto& clock = SystemClock::Instance();
  MetricsSnapshot snap;
  snap.host = HostName();
  snap.timestamp_ns = clock.WallNs();
  const int64_t now = clock.MonotonicNs();
  snap.window_seconds = static_cast<double>(now - last_collect_ns) * 1e-9;
  last_collect_ns = now;
  for (const Device& d : session.devices()) {
    if (options.devices.empty() ||
        std::find(options.devices.begin(), options.devices.end(), d.id) != options.devices.end()) {
      snap.devices.push_back(d);
    }
  }
  snap.backends = session.backends();
  snap.readings = std::move(readings);
  return snap;
}

void Print(const MetricsSnapshot& snap, const MetricsOptions& options, int refresh,
           std::ostream& out) {
  if (options.format == "json") {
    // One document per line when watching (JSON Lines), pretty otherwise.
    out << MetricsJson(snap).dump(options.watch ? -1 : 2) << "\n";
    out.flush();
    return;
  }
  if (options.format == "csv") {
    if (refresh == 1) out << MetricsCsvHeader();
    out << MetricsCsvRows(snap);
    out.flush();
    return;
  }
  if (options.watch) out << WatchHeader(snap, refresh);
  if (options.metrics.empty()) {
    out << RenderDashboard(snap);
  } else {
    out << RenderReadings(snap.readings);
  }
  out.flush();
}

}  // namespace

int RunMetrics(const MetricsOptions& given, std::ostream& out, std::ostream& err) {
  MetricsOptions options = given;
  if (options.format != "table" && options.format != "json" && options.format != "csv") {
    err << "xpuperf metrics: error: --format must be table, json or csv (got '" << options.format
        << "')\n";
    return kExitUsage;
  }
  if (options.json) {
    if (options.format == "csv") {
      err << "xpuperf metrics: error: --json and --format csv are two formats: give one\n";
      return kExitUsage;
    }
    options.format = "json";
  }
  options.json = options.format == "json";
  if (options.tpu_sdk) return RunTpuSdkListing(options, out, err);
  if (options.list) {
    if (options.json) {
      out << CatalogJson().dump(2) << "\n";
    } else {
      out << RenderCatalog();
    }
    return kExitOk;
  }
  if (options.watch) {
    if (Status s = ValidateRate(options.rate_seconds, "--rate"); !s.ok()) {
      err << "xpuperf metrics: error: " << s.error().message << "\n";
      return kExitUsage;
    }
  }
  if (!(options.window_seconds >= 0 && options.window_seconds <= 60)) {
    err << "xpuperf metrics: error: --window must be between 0 and 60 seconds\n";
    return kExitUsage;
  }
  if (Status s = ValidateCount(options.count); !s.ok()) {
    err << "xpuperf metrics: error: " << s.error().message << "\n";
    return kExitUsage;
  }
  auto session = OpenSession(options.common);
  if (!session.ok()) {
    err << "xpuperf metrics: error: " << session.error().message << "\n";
    return ExitCodeFor(session.error());
  }
  int64_t last_collect_ns = SystemClock::Instance().MonotonicNs();
  // Validate names before waiting: an unknown metric fails at once.
  if (auto check = (*session)->Collect(options.metrics, options.devices); !check.ok()) {
    err << "xpuperf metrics: error: " << check.error().message << "\n";
    return ExitCodeFor(check.error());
  }
  last_collect_ns = SystemClock::Instance().MonotonicNs();
  const bool clear_screen = options.watch && options.format == "table" && isatty(STDOUT_FILENO);
  for (int n = 0; !options.count || n < *options.count || !options.watch; ++n) {
    const double wait = options.watch ? options.rate_seconds : options.window_seconds;
    if (!SleepUnlessCancelled(wait)) break;
    auto snap = Observe(**session, options, last_collect_ns);
    if (!snap.ok()) {
      err << "xpuperf metrics: error: " << snap.error().message << "\n";
      return ExitCodeFor(snap.error());
    }
    if (clear_screen) render::WriteTerminalControl(out, "\033[H\033[2J");
    Print(*snap, options, n + 1, out);
    if (!options.watch) break;
  }
  return kExitOk;
}

}  // namespace xpuperf::telemetry
