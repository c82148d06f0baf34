#include "xpuperf/capture/capture.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "capture_id.h"
#include "xpuperf/agent/capture_store.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/concat.h"
#include "xpuperf/core/output_file.h"
#include "xpuperf/exporter/basic_auth.h"
#include "xpuperf/xla_profiler/xla_profiler.h"

namespace xpuperf::capture {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// DIR/<folder> for a host: the host text with ':' '[' ']' made file-name safe.
std::string FolderFor(const agent::AgentEndpoint& endpoint) {
  std::string name = endpoint.host;
  if (endpoint.port != agent::kDefaultRpcPort) name += "_" + std::to_string(endpoint.port);
  for (char& c : name) {
    const bool safe =
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_';
    if (!safe) c = '_';
  }
  return name;
}

std::string FailedStatus(const json& reply) {
  auto status = reply.find("status");
  if (status != reply.end() && status->is_string()) return status->get<std::string>();
  return "";
}

struct HostJob {
  agent::AgentEndpoint endpoint;
  HostOutcome outcome;
  uint64_t bytes = 0;  // fetched from this host so far
};

class HostCapture {
 public:
  HostCapture(const CaptureOptions& options, const std::string& capture_id, int64_t start_ms,
              std::ostream& log, std::mutex& log_mutex)
      : options_(options), id_(capture_id), start_ms_(start_ms), log_(log), log_mutex_(log_mutex) {}

  void Run(HostJob& job) {
    HostOutcome& out = job.outcome;
    auto fail = [&](const std::string& why) {
      out.ok = false;
      out.error = why;
      Log(out.host + ": " + why);
    };
    json start = {{"fn", "xpuperfCaptureStart"},
                  {"capture_id", id_},
                  {"job_id", options_.job_id},
                  {"pids", options_.pids},
                  {"process_limit", options_.process_limit}};
    if (options_.iterations > 0) {
      start["iterations"] = options_.iterations;
      start["iteration_roundup"] = options_.iteration_roundup;
    } else {
      start["duration_ms"] = options_.duration_ms;
      start["start_time_ms"] = start_ms_;
    }
    auto reply = Call(job.endpoint, start);
    if (!reply.ok()) return fail(reply.error().message);
    if (const std::string status = FailedStatus(*reply); !status.empty()) return fail(status);
    for (const auto& pid : reply->value("processesMatched", json::array())) {
      if (pid.is_number_integer()) out.matched.push_back(pid.get<int32_t>());
    }
    std::set<std::string> expected;
    for (const auto& path : reply->value("expectedFiles", json::array())) {
      if (path.is_string()) expected.insert(fs::path(path.get<std::string>()).filename().string());
    }
    for (const auto& pid : reply->value("activityProfilersTriggered", json::array())) {
      if (pid.is_number_integer()) out.triggered.push_back(pid.get<int32_t>());
    }
    if (out.triggered.empty()) {
      return fail(out.matched.empty() ? "no registered process matched (is the job started with "
                                        "KINETO_USE_DAEMON=1, or XPUPERF_TRACER_AGENT=1?)"
                                      : std::to_string(out.matched.size()) +
                                            " processes matched, all busy with an earlier request");
    }
    Log(out.host + ": triggered " + std::to_string(out.triggered.size()) + " of " +
        std::to_string(out.matched.size()) + " matched processes");
    const int64_t window_end_ms =
        options_.iterations > 0 ? NowMs() : std::max(start_ms_, NowMs()) + options_.duration_ms;
    const int64_t deadline_ms = window_end_ms + static_cast<int64_t>(options_.wait_seconds * 1000);
    std::set<std::string> fetched;
    while (true) {
      auto listing = Call(job.endpoint, {{"fn", "xpuperfCaptureFiles"}, {"capture_id", id_}});
      if (!listing.ok()) return fail(listing.error().message);
      if (const std::string status = FailedStatus(*listing); !status.empty()) return fail(status);
      for (const auto& file : listing->value("files", json::array())) {
        const std::string name = file.value("name", "");
        if (name.empty() || fetched.count(name)) continue;
        const uint64_t size = file.value("size_bytes", uint64_t{0});
        if (file.value("too_large", false) || size > options_.max_file_bytes) {
          Log(out.host + ": " + name + " is " + std::to_string(size) +
              " bytes, over the size limit: not fetched");
          fetched.insert(name);
          continue;
        }
        if (fetched.size() >= options_.max_files_per_host) {
          return fail("the agent listed more than " + std::to_string(options_.max_files_per_host) +
                      " files for one capture");
        }
        if (Status got = Fetch(job, name, size); !got.ok()) return fail(got.error().message);
        fetched.insert(name);
      }
      const bool all = std::all_of(expected.begin(), expected.end(), [&](const std::string& name) {
        return fetched.count(name) > 0;
      });
      if (all) break;
      if (NowMs() > deadline_ms) {
        size_t missing = 0;
        for (const auto& name : expected) missing += fetched.count(name) ? 0 : 1;
        return fail(std::to_string(missing) + " of " + std::to_string(expected.size()) +
                    " traces did not arrive within " + std::to_string(options_.wait_seconds) +
                    " s after the trace window");
      }
      if (!SleepUnlessCancelled(0.5)) return fail("interrupted");
    }
    out.ok = true;
    Log(out.host + ": " + std::to_string(out.files.size()) + " files");
  }

 private:
  Result<json> Call(const agent::AgentEndpoint& endpoint, const json& request) {
    return agent::CallAgent(endpoint, request, options_.security, options_.rpc_timeout_seconds);
  }

  Status Fetch(HostJob& job, const std::string& name, uint64_t size) {
    if (!agent::IsSafeName(name)) {
      return MakeError(ErrorCode::kParse, "the agent listed an unsafe file name");
    }
    const fs::path folder = fs::path(options_.out_dir) / job.outcome.folder;
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) return MakeError(ErrorCode::kIo, folder.string() + ": " + ec.message());
    const std::string local = (folder / name).string();
    XPUPERF_ASSIGN_OR_RETURN(OutputFile file, OutputFile::Open(local));
    uint64_t offset = 0;
    while (true) {
      XPUPERF_RETURN_IF_ERROR(CheckCancelled());
      auto chunk = Call(job.endpoint, {{"fn", "xpuperfCaptureRead"},
                                       {"capture_id", id_},
                                       {"name", name},
                                       {"offset", offset},
                                       {"length", agent::kMaxReadChunkBytes}});
      if (!chunk.ok()) return chunk.error();
      if (const std::string status = FailedStatus(*chunk); !status.empty()) {
        return MakeError(ErrorCode::kIo, Concat(name, ": ", status));
      }
      std::string bytes;
      if (!exporter::DecodeBase64(chunk->value("data", ""), bytes)) {
        return MakeError(ErrorCode::kParse, name + ": the agent sent bad base64");
      }
      if (bytes.size() > agent::kMaxReadChunkBytes) {
        return MakeError(ErrorCode::kParse, name + ": the agent sent more than was asked for");
      }
      offset += bytes.size();
      if (offset > options_.max_file_bytes) {
        return MakeError(ErrorCode::kInvalidArgument, name + ": grew past the size limit");
      }
      job.bytes += bytes.size();
      if (job.bytes > options_.max_bytes_per_host) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "the agent's files passed " + std::to_string(options_.max_bytes_per_host) +
                             " bytes in all for one capture");
      }
      XPUPERF_RETURN_IF_ERROR(file.Write(bytes));
      if (chunk->value("eof", true) || bytes.empty()) break;
    }
    XPUPERF_RETURN_IF_ERROR(file.Commit());
    (void)size;  // the listing's size may be older than the file; what was read counts
    job.outcome.files.push_back({name, local, offset});
    return {};
  }

  void Log(const std::string& line) {
    std::lock_guard lock(log_mutex_);
    log_ << "xpuperf capture: " << line << "\n";
  }

  const CaptureOptions& options_;
  const std::string& id_;
  int64_t start_ms_;
  std::ostream& log_;
  std::mutex& log_mutex_;
};

// One JAX process through XLA's ProfilerService (the xla_profiler component): the XSpace comes
// back in the reply itself and is written as DIR/<folder>/<host>.xplane.pb.
void CaptureJax(const CaptureOptions& options, int64_t start_ms, HostOutcome& out,
                std::ostream& log, std::mutex& log_mutex) {
  auto say = [&](const std::string& line) {
    std::lock_guard lock(log_mutex);
    log << "xpuperf capture: " << out.host << ": " << line << "\n";
  };
  if (options.iterations > 0) {
    out.error = "iteration mode is not supported by XLA's profiler service (use --duration-ms)";
    return say(out.error);
  }
  const fs::path folder = fs::path(options.out_dir) / out.folder;
  std::error_code ec;
  fs::create_directories(folder, ec);
  std::string host_name = out.host;
  for (char& c : host_name) c = c == ':' ? '_' : c;
  xla_profiler::XlaProfileRequest request;
  request.address = out.host;
  request.duration_ms = static_cast<uint64_t>(options.duration_ms);
  request.start_timestamp_ns = static_cast<uint64_t>(start_ms) * 1000000;
  request.host_name = host_name;
  request.output_path = (folder / (host_name + ".xplane.pb")).string();
  request.max_response_bytes = options.max_file_bytes;
  request.deadline =
      std::chrono::milliseconds(std::max<int64_t>(start_ms - NowMs(), 0) + options.duration_ms +
                                static_cast<int64_t>(options.wait_seconds * 1000));
  auto result = xla_profiler::ProfileXlaServer(request);
  if (!result.ok()) {
    out.error = result.error().message;
    return say(out.error);
  }
  if (result->empty_trace) say("the profiler server recorded nothing (empty trace)");
  out.files.push_back({host_name + ".xplane.pb", result->written_path, result->xspace_bytes});
  out.ok = true;
  say("XSpace of " + std::to_string(result->xspace_bytes) + " bytes");
}

}  // namespace

size_t CaptureReport::ok_hosts() const {
  return static_cast<size_t>(
      std::count_if(hosts.begin(), hosts.end(), [](const HostOutcome& h) { return h.ok; }));
}

size_t CaptureReport::trace_files() const {
  size_t count = 0;
  for (const auto& host : hosts) count += host.files.size();
  return count;
}

std::string ManifestJson(const CaptureOptions& options, const CaptureReport& report) {
  json hosts = json::array();
  for (const auto& host : report.hosts) {
    json files = json::array();
    for (const auto& file : host.files) {
      files.push_back({{"name", file.name},
                       {"path", host.folder + "/" + file.name},
                       {"size_bytes", file.size_bytes}});
    }
    hosts.push_back({{"host", host.host},
                     {"folder", host.folder},
                     {"status", host.ok ? "ok" : "failed"},
                     {"error", host.error},
                     {"processes_matched", host.matched},
                     {"processes_triggered", host.triggered},
                     {"files", files}});
  }
  json manifest = {{"kind", "xpuperf-capture"},
                   {"json_schema_version", 1},
                   {"capture_id", report.capture_id},
                   {"mode", options.iterations > 0 ? "iterations" : "duration"},
                   {"hosts", hosts},
                   {"hosts_ok", report.ok_hosts()},
                   {"hosts_failed", report.hosts.size() - report.ok_hosts()}};
  if (options.iterations > 0) {
    manifest["iterations"] = options.iterations;
  } else {
    manifest["duration_ms"] = options.duration_ms;
    manifest["start_time_unix_ms"] = report.start_time_ms;
  }
  if (options.job_id >= 0) manifest["job_id"] = options.job_id;
  return manifest.dump(2) + "\n";
}

Result<CaptureReport> RunCapture(const CaptureOptions& options, std::ostream& log) {
  auto usage = [](const std::string& why) { return MakeError(ErrorCode::kInvalidArgument, why); };
  if (options.hosts.empty() && options.jax_targets.empty()) {
    return usage("no hosts (--hosts, --hostfile or --jax)");
  }
  if ((options.duration_ms > 0) == (options.iterations > 0)) {
    return usage("give exactly one of --duration-ms and --iterations (> 0)");
  }
  if (options.out_dir.empty()) return usage("--out DIR is required");
  if (!options.capture_id.empty() && !agent::IsSafeName(options.capture_id)) {
    return usage("--capture-id must be 1..128 of [A-Za-z0-9._-]");
  }
  std::vector<HostJob> jobs;
  std::set<std::string> folders;
  for (const auto& host : options.hosts) {
    XPUPERF_ASSIGN_OR_RETURN(agent::AgentEndpoint endpoint, agent::ParseAgentEndpoint(host));
    HostJob job{endpoint, {}};
    job.outcome.host = host;
    job.outcome.folder = FolderFor(endpoint);
    if (!folders.insert(job.outcome.folder).second) return usage("host '" + host + "' given twice");
    jobs.push_back(std::move(job));
  }
  std::vector<HostOutcome> jax;
  for (const auto& target : options.jax_targets) {
    XPUPERF_ASSIGN_OR_RETURN(std::string address, xla_profiler::NormaliseProfilerAddress(target));
    XPUPERF_ASSIGN_OR_RETURN(agent::AgentEndpoint endpoint, agent::ParseAgentEndpoint(address));
    HostOutcome outcome;
    outcome.host = address;
    outcome.folder = "jax-" + FolderFor(endpoint);
    if (!folders.insert(outcome.folder).second) return usage("--jax '" + target + "' given twice");
    jax.push_back(std::move(outcome));
  }
  std::error_code ec;
  fs::create_directories(options.out_dir, ec);
  if (ec || !fs::is_directory(options.out_dir, ec)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--out '" + options.out_dir + "' is not a writable directory");
  }
  if (fs::exists(fs::path(options.out_dir) / "manifest.json", ec)) {
    return usage("--out '" + options.out_dir + "' already holds a capture (manifest.json)");
  }
  CaptureReport report;
  report.capture_id = options.capture_id.empty() ? StampedCaptureId("capture") : options.capture_id;
  report.start_time_ms = NowMs() + static_cast<int64_t>(options.start_in_seconds * 1000);
  std::mutex log_mutex;
  log << "xpuperf capture: " << report.capture_id << " on " << jobs.size() + jax.size() << " hosts";
  if (options.iterations > 0) {
    log << ", " << options.iterations << " iterations\n";
  } else {
    log << ", " << options.duration_ms << " ms from unix time " << report.start_time_ms
        << " ms (in " << options.start_in_seconds << " s)\n";
  }
  std::vector<std::thread> threads;
  threads.reserve(jobs.size() + jax.size());
  // Progress: a line as each host ends, "2 of 8 hosts done, 14 s elapsed".
  const size_t hosts = jobs.size() + jax.size();
  size_t hosts_done = 0;
  const auto started = std::chrono::steady_clock::now();
  const auto host_done = [&](const std::string& host, bool ok) {
    std::lock_guard lock(log_mutex);
    ++hosts_done;
    log << fmt::format(
        "xpuperf capture: {} {}; {} of {} hosts done, {:.0f} s elapsed\n", host,
        ok ? "gathered" : "failed", hosts_done, hosts,
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  };
  for (auto& job : jobs) {
    threads.emplace_back([&, capture = &job] {
      HostCapture(options, report.capture_id, report.start_time_ms, log, log_mutex).Run(*capture);
      host_done(capture->outcome.host, capture->outcome.ok);
    });
  }
  for (auto& outcome : jax) {
    threads.emplace_back([&, target = &outcome] {
      CaptureJax(options, report.start_time_ms, *target, log, log_mutex);
      host_done(target->host, target->ok);
    });
  }
  for (auto& thread : threads) thread.join();
  for (auto& job : jobs) report.hosts.push_back(std::move(job.outcome));
  for (auto& outcome : jax) report.hosts.push_back(std::move(outcome));
  XPUPERF_RETURN_IF_ERROR(WriteOutputFile((fs::path(options.out_dir) / "manifest.json").string(),
                                          ManifestJson(options, report)));
  return report;
}

}  // namespace xpuperf::capture
