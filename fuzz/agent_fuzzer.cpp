// Fuzzes what reaches the agent from outside: RPC frames and requests (dynolog's framing, every
// call answered against a real registry and a capture directory in a temporary folder), Kineto
// IPC datagrams, on-demand config text, and capture's host/credential text. The first byte
// selects the input.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "xpuperf/agent/capture_store.h"
#include "xpuperf/agent/ipc_protocol.h"
#include "xpuperf/agent/ondemand_config.h"
#include "xpuperf/agent/process_registry.h"
#include "xpuperf/agent/rpc_client.h"
#include "xpuperf/agent/rpc_handler.h"
#include "xpuperf/agent/rpc_protocol.h"

using namespace xpuperf::agent;

namespace {

struct Fixture {
  ProcessRegistry registry;
  CaptureStore store;
  HandlerContext context;
  Fixture() : store(MakeRoot(), 1 << 20) {
    (void)store.Init();
    context.registry = &registry;
    context.store = &store;
    context.hostname = "fuzz";
    // One registered process, so triggers find something.
    registry.Poll(0, {100, 1}, "client", false, AgentClock::now());
  }
  static std::string MakeRoot() {
    char pattern[] = "/tmp/agent-fuzz-XXXXXX";
    const char* made = mkdtemp(pattern);
    static std::string root = made != nullptr ? std::string(made) : std::string("/tmp/agent-fuzz");
    std::atexit([] { std::filesystem::remove_all(root); });  // the folders requests created
    return root;
  }
};

Fixture& Shared() {
  static Fixture* fixture = new Fixture();
  return *fixture;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string input(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {  // a frame: header then request JSON
      if (input.size() < kFrameHeaderBytes) break;
      (void)ParseFrameLength(input.substr(0, kFrameHeaderBytes), kMaxRequestBytes);
      (void)HandleRpcRequest(Shared().context, input.substr(kFrameHeaderBytes));
      break;
    }
    case 1: {
      auto message = ParseIpcDatagram(input);
      if (message.ok()) {
        (void)ParseKinetoRequest(message->payload);
        (void)ParseKinetoContext(message->payload);
      }
      (void)ParseKinetoRequest(input);
      break;
    }
    case 2: {
      std::string log_file;
      (void)ParseOnDemandConfig(input);
      (void)ConfineOnDemandConfig(input, "/tmp/agent-fuzz-folder", log_file);
      break;
    }
    default: {
      (void)ParseAgentEndpoint(input);
      (void)AuthorizationFromCredentials(input);
      (void)IsSafeName(input);
      break;
    }
  }
  return 0;
}
