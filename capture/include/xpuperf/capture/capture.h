// `xpuperf capture`: asks every node's agent at once to trace the job's processes from one
// synchronised start time, waits for the traces, brings the files back through the agents (no
// shared filesystem) and writes DIR/<host>/<files> plus DIR/manifest.json. A host that fails is
// reported in the manifest and the others are still gathered.
//
// Thread-safety: RunCapture may run on any thread; it starts one thread per host.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "xpuperf/agent/rpc_client.h"
#include "xpuperf/core/status.h"

namespace xpuperf::capture {

struct CaptureOptions {
  std::vector<std::string> hosts;  // HOST[:PORT] of each agent (port 1778 by default)
  // HOST:PORT of JAX processes serving jax.profiler.start_server(PORT): profiled over XLA's
  // ProfilerService from the same start time, stored as DIR/jax-<host>_<port>/<host>.xplane.pb.
  std::vector<std::string> jax_targets;
  int64_t job_id = -1;        // -1: every job
  std::vector<int32_t> pids;  // empty: every process of the job
  int64_t duration_ms = 0;    // duration mode (> 0), or
  int64_t iterations = 0;     // iteration mode (> 0)
  int64_t iteration_roundup = 1;
  double start_in_seconds = 10;          // the synchronised start is now + this (duration mode)
  double wait_seconds = 60;              // after the trace window: how long to wait for the files
  int process_limit = 1000;              // per host
  uint64_t max_file_bytes = 4ull << 30;  // larger files are not fetched
  // What one agent may hand over in one capture: files, and bytes in all. Past either the host
  // fails with the reason (an agent that lists new files for ever cannot fill the disk).
  size_t max_files_per_host = 1024;
  uint64_t max_bytes_per_host = 16ull << 30;
  std::string out_dir;
  std::string capture_id;  // "" = generated (capture-<UTC time>-<random>)
  agent::ClientSecurity security;
  double rpc_timeout_seconds = 10;
};

struct FetchedFile {
  std::string name;
  std::string path;  // local path under out_dir
  uint64_t size_bytes = 0;
};

struct HostOutcome {
  std::string host;    // as given
  std::string folder;  // DIR/<folder>
  bool ok = false;     // triggered and every expected file arrived
  std::string error;   // why not
  std::vector<int32_t> matched, triggered;
  std::vector<FetchedFile> files;
};

struct CaptureReport {
  std::string capture_id;
  int64_t start_time_ms = 0;
  std::vector<HostOutcome> hosts;
  size_t ok_hosts() const;
  size_t trace_files() const;
};

// Agents or JAX targets from a file: one HOST[:PORT] per line, '#' comments and blank lines
// ignored.
Result<std::vector<std::string>> ReadHostFile(const std::string& path);
// kInvalidArgument for bad options (no hosts, both or neither mode, a bad host) or an unusable
// out_dir; otherwise a report (possibly with every host failed). Progress lines go to `log`.
Result<CaptureReport> RunCapture(const CaptureOptions& options, std::ostream& log);
// The manifest (also written as DIR/manifest.json by RunCapture).
std::string ManifestJson(const CaptureOptions& options, const CaptureReport& report);

}  // namespace xpuperf::capture
