#include "xpuperf/health/kernel_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>

#include "xpuperf/core/sysfs_file.h"

namespace xpuperf::health {
namespace {

constexpr size_t kMaxKernelLogBytes = 16u << 20;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The record's text and its timestamp: "PRI,SEQ,USEC,FLAGS;TEXT" (/dev/kmsg) or
// "[SECONDS.MICROS] TEXT" (dmesg); any other line is text without a timestamp.
std::string_view TextOf(std::string_view line, int64_t* since_boot_us) {
  *since_boot_us = 0;
  if (const size_t semicolon = line.find(';');
      semicolon != std::string_view::npos && !line.empty() &&
      std::isdigit(static_cast<unsigned char>(line.front()))) {
    std::string_view header = line.substr(0, semicolon);
    const size_t first = header.find(',');
    const size_t second = first == std::string_view::npos ? first : header.find(',', first + 1);
    if (second != std::string_view::npos) {
      const size_t third = header.find(',', second + 1);
      std::string_view usec = header.substr(second + 1, third - second - 1);
      std::from_chars(usec.data(), usec.data() + usec.size(), *since_boot_us);
    }
    return line.substr(semicolon + 1);
  }
  if (!line.empty() && line.front() == '[') {
    const size_t close = line.find(']');
    if (close != std::string_view::npos) {
      std::string_view stamp = Trim(line.substr(1, close - 1));
      const size_t dot = stamp.find('.');
      int64_t seconds = 0;
      const auto whole =
          std::from_chars(stamp.data(), stamp.data() + std::min(dot, stamp.size()), seconds);
      // Seconds since boot: a stamp beyond a few thousand years is not one (no timestamp).
      constexpr int64_t kMaxSeconds = int64_t{1} << 40;
      if (whole.ec == std::errc() && seconds >= 0 && seconds < kMaxSeconds) {
        // The fraction as microseconds: its first six digits, "5" being 500000 µs.
        int64_t micros = 0;
        int digits = 0;
        for (size_t i = dot == std::string_view::npos ? stamp.size() : dot + 1;
             i < stamp.size() && digits < 6 && std::isdigit(static_cast<unsigned char>(stamp[i]));
             ++i, ++digits) {
          micros = micros * 10 + (stamp[i] - '0');
        }
        for (; digits < 6 && dot != std::string_view::npos; ++digits) micros *= 10;
        *since_boot_us = seconds * 1'000'000 + micros;
      }
      return line.substr(close + 1);
    }
  }
  return line;
}

// The kind of a machine-check or memory-failure record, nullopt for any other text.
std::optional<KernelEventKind> MachineCheckKind(std::string_view text) {
  if (text.find("Memory failure: ") != std::string_view::npos)
    return KernelEventKind::kMemoryFailure;
  if (text.find("mce: [Hardware Error]:") == std::string_view::npos) return std::nullopt;
  if (text.find("Machine check events logged") != std::string_view::npos)
    return KernelEventKind::kCorrectedMachineCheck;
  return KernelEventKind::kMachineCheck;
}

}  // namespace

std::string NormalizeBusId(std::string_view bus_id) {
  std::string_view s = Trim(bus_id);
  if (s.size() >= 4 && (s.substr(0, 4) == "PCI:" || s.substr(0, 4) == "pci:")) s.remove_prefix(4);
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (const size_t dot = out.rfind('.'); dot != std::string::npos && dot > out.rfind(':'))
    out.resize(dot);  // the function
  // The domain as four digits ("00000000:3b:00" → "0000:3b:00"); bus ids without one get 0000.
  const size_t colon = out.find(':');
  if (colon == std::string::npos) return out;
  if (out.find(':', colon + 1) == std::string::npos) return "0000:" + out;
  std::string domain = out.substr(0, colon);
  while (domain.size() > 4 && domain.front() == '0') domain.erase(0, 1);
  while (domain.size() < 4) domain.insert(0, "0");
  return domain + out.substr(colon);
}

std::vector<KernelEvent> ParseKernelLog(std::string_view text) {
  std::vector<KernelEvent> events;
  constexpr std::string_view kXid = "NVRM: Xid (";
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    KernelEvent event;
    std::string_view body = TextOf(line, &event.since_boot_us);
    if (auto kind = MachineCheckKind(body)) {
      event.kind = *kind;
      event.message = std::string(Trim(body).substr(0, 240));
      events.push_back(std::move(event));
      continue;
    }
    const size_t at = body.find(kXid);
    if (at == std::string_view::npos) continue;
    body.remove_prefix(at + kXid.size());
    const size_t close = body.find("):");
    if (close == std::string_view::npos || close > 64) continue;
    event.bus_id = NormalizeBusId(body.substr(0, close));
    std::string_view rest = Trim(body.substr(close + 2));
    const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), event.xid);
    if (ec != std::errc() || event.xid <= 0) continue;
    event.message = std::string(Trim(line.substr(line.find("NVRM: ") + 6)));
    if (event.message.size() > 240) event.message.resize(240);
    events.push_back(std::move(event));
  }
  return events;
}

namespace {

Result<int> OpenKernelLog(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) return fd;
  const int error = errno;
  return MakeError(ErrorCode::kUnavailable,
                   path + ": " + std::strerror(error) +
                       (error == EPERM || error == EACCES
                            ? " (the kernel log needs root or kernel.dmesg_restrict=0)"
                            : ""));
}

// Everything readable now, at most `limit` bytes. /dev/kmsg hands out one record per read and
// EAGAIN at the end; a recorded file reads as text to its end. EPIPE: records were overwritten
// while reading; go on from the next one.
Result<std::string> ReadAvailable(int fd, const std::string& path, size_t limit) {
  std::string text;
  char buffer[8192];
  while (text.size() < limit) {
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && (errno == EINTR || errno == EPIPE)) continue;
    if (n < 0 && errno != EAGAIN) {
      return MakeError(ErrorCode::kUnavailable, path + ": " + std::strerror(errno));
    }
    break;
  }
  return text;
}

constexpr size_t kMaxWatchedEvents = 4096;

}  // namespace

Result<std::vector<KernelEvent>> ReadKernelLog(const std::string& root) {
  const std::string path = JoinRoot(root, "/dev/kmsg");
  XPUPERF_ASSIGN_OR_RETURN(const int fd, OpenKernelLog(path));
  Result<std::string> text = ReadAvailable(fd, path, kMaxKernelLogBytes);
  close(fd);
  if (!text.ok()) return text.error();
  return ParseKernelLog(*text);
}

KernelLogWatch::KernelLogWatch(const std::string& root) : path_(JoinRoot(root, "/dev/kmsg")) {
  Poll();
}

KernelLogWatch::~KernelLogWatch() {
  if (fd_ >= 0) close(fd_);
}

void KernelLogWatch::Poll() {
  if (fd_ < 0) {
    Result<int> fd = OpenKernelLog(path_);
    if (!fd.ok()) {
      error_ = fd.error();
      return;
    }
    fd_ = *fd;
  }
  Result<std::string> text = ReadAvailable(fd_, path_, kMaxKernelLogBytes);
  if (!text.ok()) {
    error_ = text.error();
    return;
  }
  error_.message.clear();
  // Whole lines only: a file being appended to may end inside one.
  std::string lines = partial_ + *text;
  const size_t last = lines.rfind('\n');
  partial_ = last == std::string::npos ? lines : lines.substr(last + 1);
  if (partial_.size() > 65536) partial_.clear();
  if (last == std::string::npos) return;
  lines.resize(last + 1);
  for (KernelEvent& e : ParseKernelLog(lines)) events_.push_back(std::move(e));
  if (events_.size() > kMaxWatchedEvents)
    events_.erase(events_.begin(), events_.end() - static_cast<ptrdiff_t>(kMaxWatchedEvents));
}

Result<std::vector<KernelEvent>> KernelLogWatch::Events() const {
  if (!error_.message.empty()) return error_;
  return events_;
}

}  // namespace xpuperf::health
