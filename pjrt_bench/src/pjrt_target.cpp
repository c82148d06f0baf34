#include "pjrt_target.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>

namespace xpuperf::pjrt_bench {

int CpuPluginDevices() {
  if (const char* value = std::getenv("XPUPERF_PJRT_CPU_DEVICES")) {
    const int n = std::atoi(value);
    if (n >= 1 && n <= 256) return n;
  }
  return 4;
}

int CpuDeviceCount(DeviceUse use) { return use == DeviceUse::kOne ? 1 : CpuPluginDevices(); }

Device PjrtTarget::DeviceRecord(int device) const {
  const pjrt::DeviceDescription& d = client->devices().at(device);
  Device record;
  record.backend = "pjrt";
  record.id = fmt::format("pjrt-{}{}", client->platform_name(), device);
  record.index = device;
  record.vendor = client->platform_name() == "tpu"    ? "Google"
                  : client->platform_name() == "cuda" ? "NVIDIA"
                                                      : "";
  record.model = d.kind;
  return record;
}

nlohmann::json PjrtTarget::Describe(int device) const {
  const pjrt::DeviceDescription& d = client->devices().at(device);
  return {{"plugin", location.path},
          {"plugin_kind", location.kind},
          {"platform", client->platform_name()},
          {"platform_version", client->platform_version()},
          {"pjrt_api", fmt::format("{}.{}", plugin->version().major, plugin->version().minor)},
          {"device_kind", d.kind},
          {"device_id", d.id}};
}

Result<PjrtTarget*> OpenTarget(const std::string& choice, DeviceUse use) {
  static std::mutex mutex;
  static auto* targets = new std::map<std::string, std::unique_ptr<PjrtTarget>>();
  XPUPERF_ASSIGN_OR_RETURN(pjrt::PluginLocation location,
                           pjrt::ResolvePlugin(choice, pjrt::DiscoveryEnvironment::FromProcess()));
  const bool cpu = location.kind == "cpu";
  // Only the CPU plugin gets a client per device count: libtpu allows one client per process.
  const std::string key =
      cpu ? fmt::format("{}#{}", location.path, CpuDeviceCount(use)) : location.path;
  std::lock_guard lock(mutex);
  if (auto it = targets->find(key); it != targets->end()) return it->second.get();
  XPUPERF_ASSIGN_OR_RETURN(std::shared_ptr<pjrt::Plugin> plugin, pjrt::Plugin::Load(location.path));
  std::vector<pjrt::NamedValue> options;
  if (cpu) options.push_back({"cpu_device_count", static_cast<int64_t>(CpuDeviceCount(use))});
  XPUPERF_ASSIGN_OR_RETURN(std::unique_ptr<pjrt::Client> client, plugin->CreateClient(options));
  if (client->devices().empty()) {
    return MakeError(
        ErrorCode::kUnsupported,
        fmt::format("unsupported: PJRT plugin {} has no addressable device", location.path));
  }
  auto target = std::make_unique<PjrtTarget>();
  target->location = std::move(location);
  target->plugin = std::move(plugin);
  target->client = std::move(client);
  PjrtTarget* raw = target.get();
  (*targets)[key] = std::move(target);
  return raw;
}

double PjrtHostQueue::TimeSeconds(const std::function<void()>& enqueue) {
  const auto start = std::chrono::steady_clock::now();
  enqueue();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace xpuperf::pjrt_bench
