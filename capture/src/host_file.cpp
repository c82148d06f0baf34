#include "xpuperf/capture/capture.h"
#include "xpuperf/core/input_file.h"

namespace xpuperf::capture {

Result<std::vector<std::string>> ReadHostFile(const std::string& path) {
  XPUPERF_ASSIGN_OR_RETURN(std::string text, ReadInputFile(path, 16ull << 20));
  std::vector<std::string> hosts;
  size_t line_number = 0;
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    if (auto parsed = agent::ParseAgentEndpoint(line); !parsed.ok()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       path + ":" + std::to_string(line_number) + ": " + parsed.error().message);
    }
    hosts.push_back(line);
  }
  if (hosts.empty()) return MakeError(ErrorCode::kInvalidArgument, path + ": no hosts");
  return hosts;
}

}  // namespace xpuperf::capture
