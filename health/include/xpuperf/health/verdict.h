// Health verdicts: one per device and subsystem, each pass / warn / fail / unknown with a stable
// code, a severity, the evidence (values and where they were read) and the action it recommends —
// DCGM's health watches and NVIDIA's recovery actions, for every backend xpuperf reads.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace xpuperf::health {

enum class Status {
  kPass,     // read, and nothing wrong
  kWarn,     // read, something to watch or fix at the next maintenance
  kFail,     // read, the device should not take work until the action is done
  kUnknown,  // could not be read here; `evidence` says why (never a pass by default)
};

enum class Severity { kNone, kInfo, kWarning, kCritical };

// What to do, in increasing order of disruption (the order a node's worst verdict is taken in).
enum class Action {
  kNone,
  kRestartJob,     // the job saw an error the device recovered from (contained ECC, app XID)
  kResetDevice,    // a device reset clears it (pending row remaps, volatile DBE, GPU lost)
  kDrainNode,      // take no new work on the node: it needs a person (link down-trained, missing)
  kReplaceDevice,  // the device is out of spare resources (row remap failure, retired-page limit)
};

// kProcessor: the CPU's machine checks.
enum class Subsystem {
  kPcie,
  kMemory,
  kThermal,
  kPower,
  kInterconnect,
  kDriver,
  kClocks,
  kProcessor
};

std::string_view StatusName(Status status);           // "pass", "warn", "fail", "unknown"
std::string_view SeverityName(Severity severity);     // "none", "info", "warning", "critical"
std::string_view ActionName(Action action);           // "none", "restart_job", "reset_device", ...
std::string_view SubsystemName(Subsystem subsystem);  // "pcie", "memory", ...
// pass 0 < unknown 1 < warn 2 < fail 3: the order a node's worst verdict is taken in.
int StatusRank(Status status);

struct Verdict {
  std::string device;  // a device id ("nvidia0", "cpu0"), or "node" for the node as a whole
  Subsystem subsystem = Subsystem::kDriver;
  Status status = Status::kUnknown;
  std::string code;  // stable, upper case: "MEM_ROW_REMAP_FAILURE"; "OK" for a pass
  Severity severity = Severity::kNone;
  Action action = Action::kNone;
  std::string summary;   // one line for people: "a row remap failed: the GPU is out of spare rows"
  std::string evidence;  // the values: "remapped_rows_failure = 1"
  std::string source;    // where: "NVML field 145 (NVML_FI_DEV_REMAPPED_FAILURE)", a sysfs path
};

struct HealthReport {
  std::string host;
  int64_t timestamp_ns = 0;
  std::vector<Verdict> verdicts;  // by device, then subsystem

  // The worst status (fail > warn > unknown > pass): unknown alone does not make a node unhealthy.
  Status Overall() const;
  Action WorstAction() const;
  bool Healthy() const { return Overall() != Status::kFail; }
};

nlohmann::json VerdictJson(const Verdict& verdict);
nlohmann::json HealthJson(const HealthReport& report);

}  // namespace xpuperf::health
