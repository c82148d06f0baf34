#include "xpuperf/record/job_tree.h"

#include <dirent.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>

namespace xpuperf::record {
namespace {

bool ReadSmallFile(const std::string& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return true;
}

std::optional<uint64_t> ParseNumber(std::string_view text) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  return value;
}

std::string_view NextField(std::string_view& rest) {
  size_t start = rest.find_first_not_of(" \t\n");
  if (start == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(start);
  size_t end = rest.find_first_of(" \t\n");
  std::string_view field = rest.substr(0, end);
  rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  return field;
}

}  // namespace

Result<int> ParseParentPid(std::string_view stat_line) {
  size_t close = stat_line.rfind(')');
  if (close == std::string_view::npos) return MakeError(ErrorCode::kParse, "no ')' after comm");
  std::string_view rest = stat_line.substr(close + 1);
  NextField(rest);  // state
  std::optional<uint64_t> ppid = ParseNumber(NextField(rest));
  if (!ppid || *ppid > INT32_MAX) return MakeError(ErrorCode::kParse, "field 4 is not a pid");
  return static_cast<int>(*ppid);
}

Result<char> ParseProcessState(std::string_view stat_line) {
  size_t close = stat_line.rfind(')');
  if (close == std::string_view::npos) return MakeError(ErrorCode::kParse, "no ')' after comm");
  std::string_view rest = stat_line.substr(close + 1);
  std::string_view state = NextField(rest);
  if (state.size() != 1) return MakeError(ErrorCode::kParse, "field 3 is not a state letter");
  return state[0];
}

bool ProcessIsRunning(int pid) {
  if (::kill(pid, 0) != 0 && errno != EPERM) return false;
  std::string stat;
  if (!ReadSmallFile("/proc/" + std::to_string(pid) + "/stat", stat)) return true;  // no procfs
  Result<char> state = ParseProcessState(stat);
  return !state.ok() || (*state != 'Z' && *state != 'X');
}

Result<uint64_t> ParseResidentPages(std::string_view statm) {
  std::string_view rest = statm;
  NextField(rest);  // size
  std::optional<uint64_t> pages = ParseNumber(NextField(rest));
  if (!pages) return MakeError(ErrorCode::kParse, "expected 'size resident ...' page counts");
  return *pages;
}

JobTree::JobTree(const std::string& root, int root_pid, uint64_t page_size_bytes)
    : proc_((root.empty() || root == "/" ? std::string() : root) + "/proc"),
      root_pid_(root_pid),
      page_size_bytes_(page_size_bytes) {
  members_.push_back(root_pid);
}

double ThreadCpuSeconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

bool JobTree::RescanFromChildrenFiles() {
  std::set<int> tree;
  std::vector<int> pending = {root_pid_};
  std::string text;
  while (!pending.empty()) {
    const int pid = pending.back();
    pending.pop_back();
    if (!tree.insert(pid).second) continue;
    const std::string task_dir = proc_ + "/" + std::to_string(pid) + "/task";
    DIR* dir = ::opendir(task_dir.c_str());
    if (dir == nullptr) continue;  // exited
    bool any = false;
    while (dirent* entry = ::readdir(dir)) {
      if (entry->d_name[0] == '.') continue;
      if (!ReadSmallFile(task_dir + "/" + entry->d_name + "/children", text)) {
        if (!any && pid == root_pid_) {
          ::closedir(dir);
          return false;  // no CONFIG_PROC_CHILDREN
        }
        continue;
      }
      any = true;
      std::string_view rest = text;
      for (std::string_view field = NextField(rest); !field.empty(); field = NextField(rest)) {
        if (std::optional<uint64_t> child = ParseNumber(field); child && *child <= INT32_MAX) {
          pending.push_back(static_cast<int>(*child));
        }
      }
    }
    ::closedir(dir);
  }
  members_.assign(1, root_pid_);
  for (int pid : tree) {
    if (pid != root_pid_) members_.push_back(pid);
  }
  return true;
}

void JobTree::Rescan() {
  const double started = ThreadCpuSeconds();
  if (RescanFromChildrenFiles()) {
    last_rescan_cpu_s_ = ThreadCpuSeconds() - started;
    return;
  }
  std::map<int, std::vector<int>> children;
  if (DIR* dir = ::opendir(proc_.c_str())) {
    std::string text;
    while (dirent* entry = ::readdir(dir)) {
      std::optional<uint64_t> pid = ParseNumber(entry->d_name);
      if (!pid || *pid > INT32_MAX) continue;
      if (!ReadSmallFile(proc_ + "/" + entry->d_name + "/stat", text)) continue;
      Result<int> parent = ParseParentPid(text);
      if (parent.ok()) children[*parent].push_back(static_cast<int>(*pid));
    }
    ::closedir(dir);
  }
  std::set<int> tree;
  std::vector<int> pending = {root_pid_};
  while (!pending.empty()) {
    const int pid = pending.back();
    pending.pop_back();
    if (!tree.insert(pid).second) continue;
    if (auto it = children.find(pid); it != children.end()) {
      pending.insert(pending.end(), it->second.begin(), it->second.end());
    }
  }
  members_.assign(1, root_pid_);
  for (int pid : tree) {
    if (pid != root_pid_) members_.push_back(pid);
  }
  last_rescan_cpu_s_ = ThreadCpuSeconds() - started;
}

JobTreeSnapshot JobTree::Read(bool rescan) {
  if (rescan) Rescan();
  JobTreeSnapshot snapshot;
  std::string text;
  std::vector<int> alive;
  for (int pid : members_) {
    if (!ReadSmallFile(proc_ + "/" + std::to_string(pid) + "/statm", text)) continue;
    Result<uint64_t> pages = ParseResidentPages(text);
    if (!pages.ok()) continue;
    // A zombie has an empty address space: it holds no memory but is still in the tree.
    snapshot.resident_bytes += *pages * page_size_bytes_;
    alive.push_back(pid);
    if (pid == root_pid_) snapshot.root_alive = true;
  }
  members_ = alive;
  if (members_.empty() || members_.front() != root_pid_) {
    members_.insert(members_.begin(), root_pid_);  // keep the root so a rescan still starts there
  }
  snapshot.pids = std::move(alive);
  return snapshot;
}

}  // namespace xpuperf::record
