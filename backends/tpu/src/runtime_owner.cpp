#include "runtime_owner.h"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <system_error>

namespace xpuperf::tpu {
namespace {

constexpr std::string_view kListen = "0A";

// Socket inodes listening on `port` in one /proc/net/tcp-format table.
void ListeningInodes(const std::string& table, int port, std::set<std::string>& inodes) {
  std::ifstream in(table);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    if (!(fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode)) {
      continue;
    }
    const size_t colon = local.rfind(':');
    if (colon == std::string::npos || state != kListen) continue;
    int local_port = 0;
    const char* begin = local.data() + colon + 1;
    const char* end = local.data() + local.size();
    if (std::from_chars(begin, end, local_port, 16).ec != std::errc{} || local_port != port) {
      continue;
    }
    if (inode != "0") inodes.insert("socket:[" + inode + "]");
  }
}

}  // namespace

std::optional<int> ListeningPid(std::string_view root, int port) {
  const std::filesystem::path proc = std::filesystem::path(root) / "proc";
  std::set<std::string> inodes;
  ListeningInodes((proc / "net" / "tcp").string(), port, inodes);
  ListeningInodes((proc / "net" / "tcp6").string(), port, inodes);
  if (inodes.empty()) return std::nullopt;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(proc, ec)) {
    const std::string name = entry.path().filename().string();
    int pid = 0;
    if (std::from_chars(name.data(), name.data() + name.size(), pid).ec != std::errc{}) continue;
    std::error_code fd_ec;
    for (const auto& fd : std::filesystem::directory_iterator(entry.path() / "fd", fd_ec)) {
      std::error_code link_ec;
      const auto target = std::filesystem::read_symlink(fd.path(), link_ec);
      if (!link_ec && inodes.contains(target.string())) return pid;
    }
  }
  return std::nullopt;
}

}  // namespace xpuperf::tpu
