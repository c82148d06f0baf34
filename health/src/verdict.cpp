#include "xpuperf/health/verdict.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace xpuperf::health {

std::string_view StatusName(Status status) {
  switch (status) {
    case Status::kPass:
      return "pass";
    case Status::kWarn:
      return "warn";
    case Status::kFail:
      return "fail";
    case Status::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kNone:
      return "none";
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kCritical:
      return "critical";
  }
  return "none";
}

std::string_view ActionName(Action action) {
  switch (action) {
    case Action::kNone:
      return "none";
    case Action::kRestartJob:
      return "restart_job";
    case Action::kResetDevice:
      return "reset_device";
    case Action::kDrainNode:
      return "drain_node";
    case Action::kReplaceDevice:
      return "replace_device";
  }
  return "none";
}

std::string_view SubsystemName(Subsystem subsystem) {
  switch (subsystem) {
    case Subsystem::kPcie:
      return "pcie";
    case Subsystem::kMemory:
      return "memory";
    case Subsystem::kThermal:
      return "thermal";
    case Subsystem::kPower:
      return "power";
    case Subsystem::kInterconnect:
      return "interconnect";
    case Subsystem::kDriver:
      return "driver";
    case Subsystem::kClocks:
      return "clocks";
    case Subsystem::kProcessor:
      return "processor";
  }
  return "driver";
}

int StatusRank(Status status) {
  switch (status) {
    case Status::kPass:
      return 0;
    case Status::kUnknown:
      return 1;
    case Status::kWarn:
      return 2;
    case Status::kFail:
      return 3;
  }
  return 1;
}

Status HealthReport::Overall() const {
  Status worst = Status::kPass;
  for (const Verdict& v : verdicts)
    if (StatusRank(v.status) > StatusRank(worst)) worst = v.status;
  return worst;
}

Action HealthReport::WorstAction() const {
  Action worst = Action::kNone;
  for (const Verdict& v : verdicts) worst = std::max(worst, v.action);
  return worst;
}

nlohmann::json VerdictJson(const Verdict& v) {
  return {{"device", v.device},
          {"subsystem", SubsystemName(v.subsystem)},
          {"status", StatusName(v.status)},
          {"code", v.code},
          {"severity", SeverityName(v.severity)},
          {"action", ActionName(v.action)},
          {"summary", v.summary},
          {"evidence", v.evidence},
          {"source", v.source}};
}

nlohmann::json HealthJson(const HealthReport& report) {
  nlohmann::json verdicts = nlohmann::json::array();
  for (const Verdict& v : report.verdicts) verdicts.push_back(VerdictJson(v));
  return {{"host", report.host},
          {"timestamp_ns", report.timestamp_ns},
          {"status", StatusName(report.Overall())},
          {"healthy", report.Healthy()},
          {"action", ActionName(report.WorstAction())},
          {"verdicts", std::move(verdicts)}};
}

}  // namespace xpuperf::health
