// A stand-in for a Kineto client in tests: binds its own IPC endpoint, polls the agent with
// `req` messages as libkineto's IpcFabricConfigClient does, and when a config arrives writes a
// small Chrome trace where ACTIVITIES_LOG_FILE says (via <name>.tmp and a rename, as Kineto).
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>

#include "xpuperf/agent/ipc_protocol.h"
#include "xpuperf/agent/ondemand_config.h"

namespace xpuperf::agent::testing {

class FakeKinetoProcess {
 public:
  FakeKinetoProcess(std::string agent_endpoint, int32_t pid, int64_t job_id)
      : agent_(std::move(agent_endpoint)), pid_(pid), job_id_(job_id) {
    auto endpoint = IpcEndpoint::Bind(
        "dynoconfigclient-test-" + std::to_string(getpid()) + "-" + std::to_string(pid), "");
    if (endpoint.ok()) endpoint_.emplace(std::move(endpoint).value());
    thread_ = std::thread([this] { Loop(); });
  }
  ~FakeKinetoProcess() {
    stop_ = true;
    thread_.join();
  }
  int polls() const { return polls_; }
  int traces() const { return traces_; }
  const std::string& last_config() const { return last_config_; }

 private:
  void Loop() {
    while (!stop_ && endpoint_) {
      KinetoRequest request;
      request.job_id = job_id_;
      request.pids = {pid_, 1000000 + pid_};
      if (endpoint_->SendTo(agent_, EncodeIpcDatagram("req", EncodeKinetoRequest(request))).ok()) {
        auto reply = endpoint_->Receive(200);
        ++polls_;
        if (reply.ok() && !reply->timed_out) {
          auto message = ParseIpcDatagram(reply->bytes);
          if (message.ok() && !message->payload.empty()) Trace(message->payload);
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
  }
  void Trace(const std::string& config) {
    last_config_ = config;
    auto entries = ParseOnDemandConfig(config);
    if (!entries.ok()) return;
    const std::string path = KinetoOutputPath((*entries)["ACTIVITIES_LOG_FILE"], pid_);
    const std::string temporary = path + ".tmp";
    if (FILE* file = std::fopen(temporary.c_str(), "w")) {
      std::fprintf(file,
                   "{\"schemaVersion\":1,\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\","
                   "\"name\":\"aten::mm\",\"pid\":%d,\"tid\":1,\"ts\":10,\"dur\":5}]}\n",
                   pid_);
      std::fclose(file);
      std::rename(temporary.c_str(), path.c_str());
      ++traces_;
    }
  }

  std::string agent_;
  int32_t pid_;
  int64_t job_id_;
  std::optional<IpcEndpoint> endpoint_;
  std::atomic<bool> stop_{false};
  std::atomic<int> polls_{0}, traces_{0};
  std::string last_config_;
  std::thread thread_;
};

}  // namespace xpuperf::agent::testing
