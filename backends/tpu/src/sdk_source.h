// Internal to the TPU backend: libtpu's monitoring SDK, read in a helper process.
//
// libtpu exports a C entry point for its SDK (GetLibtpuSdkApi) but publishes neither its header
// nor its layout; its only published interface is the Python module `libtpu.sdk`. So xpuperf runs
// `python -c <sdk/tpu_sdk_helper.py>` once and keeps it: a canary import first (as tpu-info
// does, since a bad libtpu can crash its importer), then one JSON answer per interval on a pipe.
// Nothing here ever waits longer than the first-answer deadline; a hung libtpu (it asks the GCE
// metadata server for its topology, 30 tries per key, off GCE) costs one deadline, and a helper
// that died is started again at most once a minute.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "xpuperf/core/status.h"
#include "xpuperf/tpu/tpu_backend.h"

namespace xpuperf::tpu {

struct SdkMetric {
  std::vector<std::string> data;  // libtpu's strings, as data() gave them
  std::string error;              // set instead when get_metric or data() raised
};

struct SdkSnapshot {
  std::string libtpu_version;
  std::string python;
  std::vector<std::string> supported;  // list_supported_metrics(), in libtpu's order
  std::map<std::string, SdkMetric, std::less<>> values;
  std::map<std::string, std::string, std::less<>> descriptions;
  std::vector<std::string> messages;  // libtpu's last messages on its standard error
  int64_t received_ns = 0;            // steady clock
};

using SdkOptions = TpuSdkOptions;

// The helper's source (sdk/tpu_sdk_helper.py, compiled in).
std::string_view SdkHelperSource();
// The interpreter the options name (see SdkOptions::python).
std::string SdkPython(const SdkOptions& options);

class SdkSource {
 public:
  explicit SdkSource(SdkOptions options);
  ~SdkSource();
  SdkSource(const SdkSource&) = delete;
  SdkSource& operator=(const SdkSource&) = delete;

  // The newest answer. Starts the helper on first use (again restart_after_seconds after it
  // ended) and waits at most first_answer_seconds for a start's first answer; otherwise returns
  // at once. The error says why there is none, with libtpu's own last message when it gave one.
  Result<std::shared_ptr<const SdkSnapshot>> Latest();
  // What the helper said before its first values (version, python, the metrics libtpu lists),
  // kept when no values came.
  SdkSnapshot Announced();

 private:
  void StartLocked();
  void StopHelper();
  void ReadHelper(int out_fd, int err_fd);
  void TakeLine(std::string_view line);
  void TakeLogLine(std::string_view line);
  std::string WithLibtpuMessage(std::string reason) const;  // caller holds mutex_

  SdkOptions options_;
  std::mutex mutex_;
  std::condition_variable answered_;
  pid_t pid_ = -1;
  int input_fd_ = -1;
  std::thread reader_;
  bool running_ = false;
  bool ever_started_ = false;
  int64_t started_ns_ = 0;
  int64_t ended_ns_ = 0;
  std::string failure_;  // why the helper ended (its error line, or how it exited)
  std::deque<std::string> libtpu_messages_;
  SdkSnapshot pending_;  // the ready line's fields and the descriptions so far
  std::shared_ptr<const SdkSnapshot> latest_;
};

}  // namespace xpuperf::tpu
