// The records health reads from the kernel log (/dev/kmsg, since boot): NVIDIA's XIDs
// ("NVRM: Xid (PCI:0000:3b:00): 79, pid=…, GPU has fallen off the bus."), each with the PCI
// address of its GPU, and the CPU's machine checks ("mce: [Hardware Error]: …") and memory
// failures ("Memory failure: 0x…: recovery action …").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::health {

enum class KernelEventKind {
  kXid,
  kCorrectedMachineCheck,  // "mce: [Hardware Error]: Machine check events logged"
  kMachineCheck,           // any other "mce: [Hardware Error]" record: an uncorrected error
  kMemoryFailure,          // "Memory failure:": a page taken offline after an uncorrected error
};

struct KernelEvent {
  KernelEventKind kind = KernelEventKind::kXid;
  std::string bus_id;  // XIDs: "0000:3b:00" (domain:bus:device, lower case, no function)
  int xid = 0;
  std::string message;        // the record's text after "NVRM: " (XIDs), or the whole text
  int64_t since_boot_us = 0;  // the record's timestamp (0 when the line had none)
};

// The XID and machine-check records of kernel log text: /dev/kmsg records ("6,1234,5678901,-;NVRM:
// Xid …") or dmesg lines ("[ 5.678901] NVRM: Xid …"), one per line; other lines are skipped.
std::vector<KernelEvent> ParseKernelLog(std::string_view text);

// Reads ROOT/dev/kmsg without blocking (every record still in the ring buffer; at most 16 MiB)
// and parses it. Fails with the reason when it cannot be read (dmesg_restrict without root).
Result<std::vector<KernelEvent>> ReadKernelLog(const std::string& root);

// The kernel log followed over time (serve): opened once, every Poll() reads the records added
// since, without blocking; keeps the newest 4096 XID records. A log that cannot be opened is
// retried at each Poll() and its error kept. Not thread-safe.
class KernelLogWatch {
 public:
  explicit KernelLogWatch(const std::string& root);
  ~KernelLogWatch();
  KernelLogWatch(const KernelLogWatch&) = delete;
  KernelLogWatch& operator=(const KernelLogWatch&) = delete;

  void Poll();
  // Every record seen since the watch started (the ring buffer's since boot included), or why
  // the log cannot be read.
  Result<std::vector<KernelEvent>> Events() const;

 private:
  std::string path_;
  int fd_ = -1;
  std::string partial_;  // a regular file's last line without its newline yet
  std::vector<KernelEvent> events_;
  Error error_{ErrorCode::kUnavailable, ""};
};

// "00000000:3B:00.0" (NVML), "0000:3b:00.0" (sysfs), "PCI:0000:3b:00" → "0000:3b:00".
std::string NormalizeBusId(std::string_view bus_id);

}  // namespace xpuperf::health
