#include "xpuperf/agent/rpc_handler.h"

#include <chrono>
#include <limits>
#include <set>

#include "xpuperf/agent/ondemand_config.h"
#include "xpuperf/agent/rpc_protocol.h"
#include "xpuperf/core/version.h"

namespace xpuperf::agent {

namespace {

using nlohmann::json;

std::string Failed(const std::string& why) { return json{{"status", "failed: " + why}}.dump(); }

// An integer field within [low, high]; `fallback` when absent. False on a wrong type or range.
bool ReadInt(const json& body, const char* key, int64_t low, int64_t high, int64_t fallback,
             int64_t& out, std::string& error) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) {
    out = fallback;
    return true;
  }
  if (it->is_number_unsigned()) {
    const uint64_t value = it->get<uint64_t>();
    if (value > static_cast<uint64_t>(high)) {
      error = std::string(key) + " is out of range";
      return false;
    }
    out = static_cast<int64_t>(value);
  } else if (it->is_number_integer()) {
    out = it->get<int64_t>();
  } else {
    error = std::string(key) + " must be an integer";
    return false;
  }
  if (out < low || out > high) {
    error = std::string(key) + " must be in " + std::to_string(low) + ".." + std::to_string(high);
    return false;
  }
  return true;
}

bool ReadPids(const json& body, std::set<int32_t>& pids, std::string& error) {
  auto it = body.find("pids");
  if (it == body.end() || it->is_null()) return true;
  if (!it->is_array() || it->size() > 4096) {
    error = "pids must be an array of at most 4096 integers";
    return false;
  }
  for (const auto& pid : *it) {
    if (!pid.is_number_integer() || pid.get<int64_t>() < 0 ||
        pid.get<int64_t>() > std::numeric_limits<int32_t>::max()) {
      error = "pids must be integers in 0..2147483647";
      return false;
    }
    pids.insert(static_cast<int32_t>(pid.get<int64_t>()));
  }
  return true;
}

std::string TriggerWith(const HandlerContext& context, int64_t job_id,
                        const std::set<int32_t>& pids, int64_t limit, const std::string& config,
                        const std::string& log_file) {
  const auto now_ns = std::chrono::system_clock::now().time_since_epoch().count();
  TriggerResult result =
      context.registry->Trigger(job_id, pids, static_cast<int>(limit), [&](int32_t pid) {
        const size_t trace_id = std::hash<std::string>{}(
            context.hostname + ":" + std::to_string(pid) + ":" + std::to_string(now_ns));
        return config + "\nREQUEST_TRACE_ID=" + std::to_string(trace_id);
      });
  json reply = {{"processesMatched", result.matched},
                {"activityProfilersTriggered", result.triggered},
                {"activityProfilersBusy", result.busy},
                {"eventProfilersTriggered", json::array()},
                {"eventProfilersBusy", 0},
                {"logFile", log_file}};
  json expected = json::array();
  for (int32_t pid : result.triggered) expected.push_back(KinetoOutputPath(log_file, pid));
  reply["expectedFiles"] = expected;
  return reply.dump();
}

std::string SetKinetoOnDemand(const HandlerContext& context, const json& body) {
  auto config = body.find("config");
  if (config == body.end() || !config->is_string() || !body.contains("pids")) {
    return json{{"status", "failed"}}.dump();  // dynolog's reply
  }
  std::string error;
  int64_t job_id = 0, limit = 0;
  std::set<int32_t> pids;
  if (!ReadInt(body, "job_id", std::numeric_limits<int32_t>::min(),
               std::numeric_limits<int32_t>::max(), 0, job_id, error) ||
      !ReadInt(body, "process_limit", 0, 1 << 20, kDefaultProcessLimit, limit, error) ||
      !ReadPids(body, pids, error)) {
    return Failed(error);
  }
  // dyno's own clients: their log files go to <capture root>/dyno/.
  auto folder = context.store->Prepare("dyno");
  if (!folder.ok()) return Failed(folder.error().message);
  std::string log_file;
  auto confined = ConfineOnDemandConfig(config->get<std::string>(), *folder, log_file);
  if (!confined.ok()) return Failed(confined.error().message);
  return TriggerWith(context, job_id, pids, limit, *confined, log_file);
}

std::string CaptureStart(const HandlerContext& context, const json& body) {
  auto id = body.find("capture_id");
  if (id == body.end() || !id->is_string()) return Failed("capture_id (string) is required");
  std::string error;
  CaptureRequest request;
  int64_t job_id = 0, limit = 0;
  std::set<int32_t> pids;
  constexpr int64_t kDay = 24ll * 3600 * 1000;
  if (!ReadInt(body, "job_id", kAnyJob, std::numeric_limits<int64_t>::max(), kAnyJob, job_id,
               error) ||
      !ReadInt(body, "process_limit", 1, 1 << 20, kDefaultProcessLimit, limit, error) ||
      !ReadInt(body, "duration_ms", 1, kDay, 500, request.duration_ms, error) ||
      !ReadInt(body, "iterations", 0, 1 << 30, 0, request.iterations, error) ||
      !ReadInt(body, "iteration_roundup", 1, 1 << 30, 1, request.iteration_roundup, error) ||
      !ReadInt(body, "start_time_ms", 0, std::numeric_limits<int64_t>::max() / 2, 0,
               request.start_time_ms, error) ||
      !ReadPids(body, pids, error)) {
    return Failed(error);
  }
  auto folder = context.store->Prepare(id->get<std::string>());
  if (!folder.ok()) return Failed(folder.error().message);
  request.log_file = *folder + "/trace.json";
  return TriggerWith(context, job_id, pids, limit, BuildOnDemandConfig(request), request.log_file);
}

std::string CaptureFiles(const HandlerContext& context, const json& body) {
  auto id = body.find("capture_id");
  if (id == body.end() || !id->is_string()) return Failed("capture_id (string) is required");
  auto files = context.store->List(id->get<std::string>());
  if (!files.ok()) return Failed(files.error().message);
  json list = json::array();
  for (const auto& file : *files) {
    list.push_back(
        {{"name", file.name}, {"size_bytes", file.size_bytes}, {"too_large", file.too_large}});
  }
  return json{{"files", list}, {"max_file_bytes", context.store->max_file_bytes()}}.dump();
}

std::string CaptureRead(const HandlerContext& context, const json& body) {
  auto id = body.find("capture_id");
  auto name = body.find("name");
  if (id == body.end() || !id->is_string() || name == body.end() || !name->is_string()) {
    return Failed("capture_id and name (strings) are required");
  }
  std::string error;
  int64_t offset = 0, length = 0;
  if (!ReadInt(body, "offset", 0, std::numeric_limits<int64_t>::max(), 0, offset, error) ||
      !ReadInt(body, "length", 1, static_cast<int64_t>(kMaxReadChunkBytes), kMaxReadChunkBytes,
               length, error)) {
    return Failed(error);
  }
  auto chunk = context.store->Read(id->get<std::string>(), name->get<std::string>(),
                                   static_cast<uint64_t>(offset), static_cast<uint64_t>(length));
  if (!chunk.ok()) return Failed(chunk.error().message);
  return json{{"data", EncodeBase64(chunk->data)},
              {"offset", chunk->offset},
              {"size_bytes", chunk->file_size},
              {"eof", chunk->eof}}
      .dump();
}

std::string ListProcesses(const HandlerContext& context) {
  const auto now = AgentClock::now();
  json list = json::array();
  for (const auto& record : context.registry->Live()) {
    list.push_back(
        {{"pid", record.pid},
         {"job_id", record.job_id},
         {"pids", record.pids},
         {"polls", record.polls},
         {"profiler_busy", record.profiler_busy},
         {"config_pending", !record.pending_config.empty()},
         {"last_seen_seconds_ago", std::chrono::duration<double>(now - record.last_seen).count()}});
  }
  return json{{"processes", list}}.dump();
}

}  // namespace

std::optional<std::string> HandleRpcRequest(const HandlerContext& context, std::string_view text) {
  auto request = ParseRpcRequest(text);
  if (!request.ok()) return std::nullopt;
  static const std::set<std::string, std::less<>> kKnown = {
      "getStatus",           "getVersion",          "setKinetOnDemandRequest",
      "dcgmProfPause",       "dcgmProfResume",      "xpuperfListProcesses",
      "xpuperfCaptureStart", "xpuperfCaptureFiles", "xpuperfCaptureRead"};
  if (!kKnown.count(request->fn)) return std::nullopt;
  const json& body = request->body;
  if (context.authorize) {
    auto auth = body.find("authorization");
    if (auth == body.end() || !auth->is_string() || !context.authorize(auth->get<std::string>())) {
      return Failed("unauthorized (this agent needs \"authorization\": \"Basic ...\")");
    }
  }
  const std::string& fn = request->fn;
  if (fn == "getStatus") return json{{"status", 1}}.dump();
  if (fn == "getVersion") return json{{"version", std::string("xpuperf ") + kVersion}}.dump();
  if (fn == "dcgmProfPause" || fn == "dcgmProfResume") return json{{"status", false}}.dump();
  if (fn == "setKinetOnDemandRequest") return SetKinetoOnDemand(context, body);
  if (fn == "xpuperfListProcesses") return ListProcesses(context);
  if (fn == "xpuperfCaptureStart") return CaptureStart(context, body);
  if (fn == "xpuperfCaptureFiles") return CaptureFiles(context, body);
  return CaptureRead(context, body);
}

std::string EncodeBase64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t v =
        (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t v = uint8_t(bytes[i]) << 16;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == bytes.size()) {
    const uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

}  // namespace xpuperf::agent
