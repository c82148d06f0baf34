// The driver records health reads from the kernel log (/dev/kmsg, since boot): NVIDIA's XIDs
// ("NVRM: Xid (PCI:0000:3b:00): 79, pid=…, GPU has fallen off the bus."), each with the PCI
// address of its GPU.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::health {

struct KernelEvent {
  std::string bus_id;  // normalised: "0000:3b:00" (domain:bus:device, lower case, no function)
  int xid = 0;
  std::string message;        // the record's text after "NVRM: "
  int64_t since_boot_us = 0;  // the record's timestamp (0 when the line had none)
};

// The XID records of kernel log text: /dev/kmsg records ("6,1234,5678901,-;NVRM: Xid …") or
// dmesg lines ("[ 5.678901] NVRM: Xid …"), one per line; other lines are skipped.
std::vector<KernelEvent> ParseKernelLog(std::string_view text);

// Reads ROOT/dev/kmsg without blocking (every record still in the ring buffer; at most 16 MiB)
// and parses it. Fails with the reason when it cannot be read (dmesg_restrict without root).
Result<std::vector<KernelEvent>> ReadKernelLog(const std::string& root);

// "00000000:3B:00.0" (NVML), "0000:3b:00.0" (sysfs), "PCI:0000:3b:00" → "0000:3b:00".
std::string NormalizeBusId(std::string_view bus_id);

}  // namespace xpuperf::health
