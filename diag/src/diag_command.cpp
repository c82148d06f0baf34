#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <ostream>

#include "diag_test.h"
#include "xpuperf/bench/results.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/clock.h"
#include "xpuperf/core/host_name.h"
#include "xpuperf/core/json.h"
#include "xpuperf/core/output_directory.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/core/version.h"
#include "xpuperf/health/slurm_action.h"
#include "xpuperf/render/table.h"
#include "xpuperf/telemetry/session_factory.h"

namespace xpuperf::diag {
namespace {

constexpr const char* kCommand = "xpuperf diag";
using health::Status;

int Fail(const Error& error, std::ostream& err) {
  err << kCommand << ": error: " << error.message << "\n";
  return ExitCodeFor(error);
}

xpuperf::Status CheckOptions(const DiagOptions& o) {
  auto invalid = [](const std::string& m) { return MakeError(ErrorCode::kInvalidArgument, m); };
  if (o.level < 1 || o.level > 3) return invalid("-r must be 1, 2 or 3");
  if (!(o.duration_seconds >= 1 && o.duration_seconds <= 86400))
    return invalid("--duration must be between 1 and 86400 seconds");
  if (o.expect && (*o.expect < 0 || *o.expect > 4096))
    return invalid("--expect must be between 0 and 4096");
  if (o.memory_mib < 1 || o.memory_mib > (1u << 20))
    return invalid("--memory-mib must be between 1 and 1048576");
  return {};
}

nlohmann::json TestJson(const DiagTest& t) {
  return {{"test", t.test}, {"device", t.device},     {"status", health::StatusName(t.status)},
          {"code", t.code}, {"evidence", t.evidence}, {"seconds", t.seconds}};
}

bool Failed(const std::vector<DiagTest>& tests) {
  return std::any_of(tests.begin(), tests.end(),
                     [](const DiagTest& t) { return t.status == Status::kFail; });
}

std::string RenderText(const std::vector<DiagTest>& tests, int level, const std::string& dir) {
  int counts[4] = {0, 0, 0, 0};
  for (const DiagTest& t : tests) ++counts[static_cast<int>(t.status)];
  std::string out = fmt::format(
      "Diagnostic level {} on {}: {} ({} fail, {} warn, {} unknown, {} pass); results in {}\n",
      level, HostName(), Failed(tests) ? "FAIL" : "PASS", counts[static_cast<int>(Status::kFail)],
      counts[static_cast<int>(Status::kWarn)], counts[static_cast<int>(Status::kUnknown)],
      counts[static_cast<int>(Status::kPass)], dir);
  render::Table table;
  for (const char* header : {"TEST", "DEVICE", "STATUS", "CODE", "EVIDENCE"}) {
    render::Column column;
    column.header = header;
    table.columns.push_back(std::move(column));
  }
  table.max_cell_width = 100;
  for (const DiagTest& t : tests) {
    table.rows.push_back({render::Cell::Text(t.test), render::Cell::Text(t.device),
                          render::Cell::Text(std::string(health::StatusName(t.status))),
                          render::Cell::Text(t.code), render::Cell::Text(t.evidence)});
  }
  out += render::RenderTableText(table);
  std::string failures;
  for (const DiagTest& t : tests) {
    if (t.status != Status::kFail) continue;
    failures += fmt::format("\n  fail {} {} {}\n", t.test, t.device, t.code);
    failures += render::WrapNote("evidence: " + t.evidence);
  }
  if (!failures.empty()) out += "\nFailures:\n" + failures;
  return out;
}

}  // namespace

int RunDiag(const DiagOptions& options, std::ostream& out, std::ostream& err) {
  if (xpuperf::Status checked = CheckOptions(options); !checked.ok())
    return Fail(checked.error(), err);
  const int64_t now = SystemClock::Instance().WallNs();
  const std::string dir =
      options.out.empty() ? "results/diag-" + bench::MakeRunId(now, HostName()) : options.out;
  if (xpuperf::Status ready = PrepareNewDirectory(dir); !ready.ok())
    return Fail(ready.error(), err);
  auto session = telemetry::OpenSession(options.common);
  if (!session.ok()) return Fail(session.error(), err);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Fail(MakeError(ErrorCode::kIo, "cannot create " + dir + ": " + ec.message()), err);

  // One progress line per stage: "[2/4] memory pattern test (256 MiB), 3 s elapsed".
  const int stages = options.level == 1 ? 1 : options.level == 2 ? 3 : 4;
  int stage = 0;
  const auto started = std::chrono::steady_clock::now();
  auto announce = [&](const std::string& what) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    err << fmt::format("{}: [{}/{}] {}, {:.0f} s elapsed\n", kCommand, ++stage, stages, what,
                       elapsed);
  };
  announce(fmt::format("level {}: deployment and health", options.level));
  std::vector<DiagTest> tests = DeploymentTests(**session, options);
  if (options.level >= 2 && !CancellationRequested()) {
    announce(fmt::format("memory pattern test ({} MiB)", options.memory_mib));
    for (DiagTest& t : MemoryPatternTests((*session)->devices(), options)) tests.push_back(t);
  }
  if (options.level >= 2 && !CancellationRequested()) {
    announce("performance gate (quick suite: compute, memory)");
    for (DiagTest& t : PerformanceTests(options, dir, err)) tests.push_back(t);
  }
  if (options.level >= 3 && !CancellationRequested()) {
    announce(fmt::format("stress under watch for {:g} s", options.duration_seconds));
    for (DiagTest& t : StressTests(**session, options, err)) tests.push_back(t);
  }
  if (CancellationRequested()) {
    err << kCommand << ": interrupted; the tests so far are in " << dir << "/diag.json\n";
  }

  nlohmann::json doc = {{"json_schema_version", kJsonSchemaVersion},
                        {"xpuperf_version", kVersion},
                        {"host", HostName()},
                        {"timestamp_ns", now},
                        {"level", options.level},
                        {"result", Failed(tests) ? "fail" : "pass"},
                        {"complete", !CancellationRequested()},
                        {"directory", dir}};
  nlohmann::json list = nlohmann::json::array();
  for (const DiagTest& t : tests) list.push_back(TestJson(t));
  doc["tests"] = std::move(list);
  if (xpuperf::Status written = WriteOutputFile(dir + "/diag.json", doc.dump(2) + "\n");
      !written.ok())
    return Fail(written.error(), err);
  if (options.json) {
    out << doc.dump(2) << "\n";
  } else {
    out << RenderText(tests, options.level, dir);
  }
  out.flush();
  if (CancellationRequested()) return CancellationExitCode();
  if (options.resume) {
    if (Failed(tests)) {
      err << kCommand << ": the diagnostic failed: the node stays drained\n";
    } else {
      health::SlurmActionOptions slurm;
      slurm.node = options.node;
      slurm.scontrol = options.scontrol;
      err << kCommand << ": ";
      if (xpuperf::Status resumed = health::ResumeIfDrainedByXpuperf(slurm, err); !resumed.ok()) {
        err << "error: " << resumed.error().message << "\n";
        return kExitFailure;
      }
    }
  }
  return Failed(tests) ? kExitFailure : kExitOk;
}

}  // namespace xpuperf::diag
