#include "xpuperf/pjrt/probe.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "xpuperf/pjrt/client.h"

extern char** environ;

namespace xpuperf::pjrt {
namespace {

// The report's line starts with this, so that whatever a plugin prints on stdout is skipped.
constexpr std::string_view kReportPrefix = "xpuperf-pjrt-probe: ";

// What the child reports when the client cannot be created: the TPU case in the user's words.
std::string ClientError(const std::string& kind, const Error& error) {
  if (kind == "tpu") return "unsupported: no TPU (" + error.message + ")";
  return error.message;
}

ProbeResult FromJson(const PluginLocation& location, const nlohmann::json& j) {
  ProbeResult r;
  r.location = location;
  r.ok = j.value("ok", false);
  r.error = j.value("error", "");
  r.api = {j.value("api_major", 0), j.value("api_minor", 0)};
  r.platform = j.value("platform", "");
  r.platform_version = j.value("platform_version", "");
  if (j.contains("attributes") && j["attributes"].is_array()) {
    for (const auto& a : j["attributes"]) {
      if (a.is_string()) r.attributes.push_back(a.get<std::string>());
    }
  }
  if (j.contains("devices") && j["devices"].is_array()) {
    for (const auto& d : j["devices"]) {
      ProbeDevice device{d.value("id", 0),
                         d.value("kind", ""),
                         d.value("description", ""),
                         {},
                         {},
                         d.value("memory_unavailable", "")};
      if (d.contains("memory") && d["memory"].is_object()) {
        const nlohmann::json& memory = d["memory"];
        if (memory.value("bytes_limit", int64_t{-1}) >= 0)
          device.bytes_limit = memory["bytes_limit"];
        if (memory.value("bytes_in_use", int64_t{-1}) >= 0) {
          device.bytes_in_use = memory["bytes_in_use"];
        }
      }
      r.devices.push_back(std::move(device));
    }
  }
  return r;
}

// A device as the report and `devices --json` give it: memory in bytes when the plugin reports
// it, else memory_unavailable with the reason.
nlohmann::json DeviceJson(const ProbeDevice& d) {
  nlohmann::json j = {{"id", d.id}, {"kind", d.kind}, {"description", d.description}};
  if (d.bytes_limit || d.bytes_in_use) {
    nlohmann::json memory = nlohmann::json::object();
    if (d.bytes_limit) memory["bytes_limit"] = *d.bytes_limit;
    if (d.bytes_in_use) memory["bytes_in_use"] = *d.bytes_in_use;
    j["memory"] = memory;
  } else if (!d.memory_note.empty()) {
    j["memory_unavailable"] = d.memory_note;
  }
  return j;
}

ProbeResult Failed(const PluginLocation& location, std::string error) {
  ProbeResult r;
  r.location = location;
  r.error = std::move(error);
  return r;
}

}  // namespace

nlohmann::json ProbeResult::ToJson() const {
  nlohmann::json j = {{"kind", location.kind},
                      {"path", location.path},
                      {"found_by", location.source},
                      {"ok", ok},
                      {"pjrt_api", fmt::format("{}.{}", api.major, api.minor)},
                      {"attributes", attributes}};
  if (!ok) j["error"] = error;
  if (ok) {
    j["platform"] = platform;
    j["platform_version"] = platform_version;
    nlohmann::json list = nlohmann::json::array();
    for (const ProbeDevice& d : devices) list.push_back(DeviceJson(d));
    j["devices"] = list;
  }
  return j;
}

double ProbeTimeoutSeconds() {
  if (const char* value = std::getenv("XPUPERF_PJRT_PROBE_TIMEOUT")) {
    const double seconds = std::atof(value);
    if (seconds >= 1 && seconds <= 600) return seconds;
  }
  return 30;
}

int RunProbeChild(const std::string& path, std::ostream& out) {
  nlohmann::json report = {{"ok", false}};
  auto plugin = Plugin::Load(path);
  if (!plugin.ok()) {
    report["error"] = plugin.error().message;
    out << kReportPrefix << report.dump() << "\n";
    return 1;
  }
  report["api_major"] = (*plugin)->version().major;
  report["api_minor"] = (*plugin)->version().minor;
  nlohmann::json attributes = nlohmann::json::array();
  for (const NamedValue& a : (*plugin)->attributes()) attributes.push_back(a.ToString());
  report["attributes"] = attributes;
  auto client = (*plugin)->CreateClient({});
  if (!client.ok()) {
    report["error"] = ClientError(KindFromPath(path), client.error());
    out << kReportPrefix << report.dump() << "\n";
    return 1;
  }
  report["ok"] = true;
  report["platform"] = (*client)->platform_name();
  report["platform_version"] = (*client)->platform_version();
  nlohmann::json devices = nlohmann::json::array();
  const std::vector<DeviceDescription>& described = (*client)->devices();
  for (size_t i = 0; i < described.size(); ++i) {
    ProbeDevice device{described[i].id, described[i].kind, described[i].debug_string, {}, {}, {}};
    if (auto memory = (*client)->DeviceMemoryStats(static_cast<int>(i)); memory.ok()) {
      device.bytes_in_use = memory->bytes_in_use;
      device.bytes_limit = memory->bytes_limit;
    } else {
      // A plugin without the statistics (XLA's CPU plugin: UNIMPLEMENTED) does not support
      // them; any other error is said as it is.
      const Error& why = memory.error();
      const bool unsupported = why.code == ErrorCode::kUnsupported ||
                               why.message.find(": UNIMPLEMENTED: ") != std::string::npos;
      device.memory_note = unsupported && why.message.rfind("unsupported: ", 0) != 0
                               ? "unsupported: " + why.message
                               : why.message;
    }
    devices.push_back(DeviceJson(device));
  }
  report["devices"] = devices;
  out << kReportPrefix << report.dump() << "\n";
  out.flush();
  return 0;
}

ProbeResult ProbePlugin(const PluginLocation& location, const std::string& executable,
                        double timeout_seconds) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    return Failed(location, fmt::format("cannot probe: pipe: {}", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);  // killable as a group
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) environment.emplace_back(*e);
  if (location.kind == "tpu" && std::getenv("TPU_SKIP_MDS_QUERY") == nullptr) {
    environment.emplace_back("TPU_SKIP_MDS_QUERY=1");
  }
  std::vector<char*> envp;
  envp.reserve(environment.size() + 1);
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string command = kProbeCommand;
  std::string exe = executable;
  std::string path = location.path;
  char* argv[] = {exe.data(), command.data(), path.data(), nullptr};
  pid_t child = -1;
  const int spawned =
      ::posix_spawn(&child, executable.c_str(), &actions, &attributes, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return Failed(location,
                  fmt::format("cannot probe: {}: {}", executable, std::strerror(spawned)));
  }

  std::string output;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(timeout_seconds * 1000));
  bool timed_out = false;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now())
                          .count();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    pollfd fd{pipe_fds[0], POLLIN, 0};
    const int ready = ::poll(&fd, 1, static_cast<int>(std::min<int64_t>(left, 200)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    char buffer[4096];
    const ssize_t n = ::read(pipe_fds[0], buffer, sizeof(buffer));
    if (n <= 0) break;  // the child closed its stdout: done
    output.append(buffer, static_cast<size_t>(n));
    if (output.size() > (1 << 20)) break;  // a report is a few KiB
  }
  ::close(pipe_fds[0]);
  if (timed_out) ::kill(-child, SIGKILL);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    return Failed(location,
                  fmt::format("the probe did not answer within {:g} s (libtpu can wait for the "
                              "cloud metadata server; XPUPERF_PJRT_PROBE_TIMEOUT sets the limit)",
                              timeout_seconds));
  }
  nlohmann::json report;
  for (size_t start = 0; start < output.size();) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string_view line(output.data() + start, end - start);
    if (line.substr(0, kReportPrefix.size()) == kReportPrefix) {
      report = nlohmann::json::parse(line.substr(kReportPrefix.size()), nullptr,
                                     /*allow_exceptions=*/false);
    }
    start = end + 1;
  }
  if (report.is_object()) return FromJson(location, report);
  if (WIFSIGNALED(status)) {
    return Failed(location, fmt::format("the plugin crashed the probe (signal {}: {})",
                                        WTERMSIG(status), ::strsignal(WTERMSIG(status))));
  }
  return Failed(location, fmt::format("the probe exited with status {} and no report",
                                      WIFEXITED(status) ? WEXITSTATUS(status) : -1));
}

}  // namespace xpuperf::pjrt
