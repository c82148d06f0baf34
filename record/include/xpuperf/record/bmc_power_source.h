// The BMC's power reading for `xpuperf record`: ipmitool run in a thread of its own, no more often
// than once a second (a BMC answers in tens to hundreds of ms and updates its reading about once a
// second; faster polling only loads it), each call under a deadline so a hung BMC never stalls the
// recorder, the call in flight killed when recording stops. `ipmitool dcmi power reading` first;
// where the BMC has no DCMI power reading, its SDR power sensors (`sdr type "Power Supply"`, then
// `sdr type Current`). Thread-safe: the recorder takes readings while the thread runs.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "xpuperf/record/bmc_power_parse.h"

namespace xpuperf::record {

struct BmcPowerOptions {
  std::string program = "ipmitool";  // a name looked up on PATH, or a path
  double period_s = 1;               // between the starts of two calls; at least 1 s
  double timeout_s = 10;             // a call still running after this is killed
};

// The timeline's names of the BMC's reading: power_watts{device="bmc",domain="ipmi_dcmi"} (or
// "ipmi_sdr"). The BMC measures the whole node (CPUs, accelerators, fans, PSU losses), so it
// overlaps every other domain and is never added to them.
inline constexpr std::string_view kBmcDevice = "bmc";
inline constexpr std::string_view kBmcDcmiDomain = "ipmi_dcmi";
inline constexpr std::string_view kBmcSdrDomain = "ipmi_sdr";

struct BmcSample {
  int64_t mono_ns = 0;  // CLOCK_MONOTONIC when ipmitool answered
  int64_t wall_ns = 0;  // CLOCK_REALTIME, the same instant
  double watts = 0;
  std::string domain;  // kBmcDcmiDomain or kBmcSdrDomain
};

class BmcPowerSource {
 public:
  // Starts the thread (the program is looked up first: without it, no thread and a reason).
  explicit BmcPowerSource(BmcPowerOptions options);
  ~BmcPowerSource();  // Stop()
  BmcPowerSource(const BmcPowerSource&) = delete;
  BmcPowerSource& operator=(const BmcPowerSource&) = delete;

  // Kills the call in flight and joins the thread. Idempotent.
  void Stop();
  // The readings that arrived since the last call, oldest first. A reading whose BMC timestamp
  // and values repeat the previous one is the same BMC sample and is not returned twice.
  std::vector<BmcSample> TakeNew();

  // Why there is no reading ("unsupported: ipmitool not found on PATH", "no BMC (…)"), or the
  // last call's error while readings still come; empty when the last call gave a reading.
  std::string reason() const;
  // How the readings are taken: "DCMI power reading (instantaneous)" or the SDR sensors summed.
  std::string method() const;
  std::optional<double> bmc_sampling_period_s() const;
  int64_t readings() const;
  int64_t failed_calls() const;
  double period_s() const { return options_.period_s; }

 private:
  enum class Mode { kProbe, kDcmi, kSdrPowerSupply, kSdrCurrent, kGone };
  void Run();
  void Probe();
  void Poll();
  // Runs program with args; its stdout, or an error with the reason (deadline, exit, stderr).
  Result<std::string> Call(const std::vector<std::string>& args);
  void Publish(const BmcPowerReading& reading);
  void Fail(const std::string& reason);

  BmcPowerOptions options_;
  std::string program_path_;
  Mode mode_ = Mode::kProbe;          // thread only
  bool last_call_timed_out_ = false;  // thread only

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  int child_pid_ = 0;  // the call in flight (its own process group), 0 when none
  std::vector<BmcSample> pending_;
  std::string reason_, method_, last_key_;
  std::optional<double> sampling_period_s_;
  int64_t readings_ = 0, failed_calls_ = 0;
  std::thread thread_;
};

}  // namespace xpuperf::record
