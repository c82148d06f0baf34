#include "xpuperf/roofline/atomic_file.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace xpuperf::roofline {

Status WriteFileAtomically(const std::string& path, std::string_view text) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code error;
  if (!fs::is_directory(parent, error)) {
    return MakeError(ErrorCode::kIo, fmt::format("cannot write {}: directory {} does not exist",
                                                 path, parent.string()));
  }
  const fs::path temporary =
      parent / fmt::format(".{}.tmp-{}", target.filename().string(), getpid());
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
    file.flush();
    if (!file) {
      const std::string reason = std::strerror(errno);
      fs::remove(temporary, error);
      return MakeError(ErrorCode::kIo, fmt::format("cannot write {}: {}", path, reason));
    }
  }
  fs::rename(temporary, target, error);
  if (error) {
    fs::remove(temporary, error);
    return MakeError(ErrorCode::kIo, fmt::format("cannot write {}: {}", path, error.message()));
  }
  return Status::Ok();
}

}  // namespace xpuperf::roofline
