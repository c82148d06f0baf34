#include "xid_catalog.h"

#include <array>

namespace xpuperf::health {
namespace {

using enum Status;
using A = Action;
using S = Subsystem;

// The XIDs a data-centre GPU reports most, with the action NVIDIA's catalog gives. Application
// faults (13, 31, 43) say the job failed, not the GPU: restart the job; a GPU-side fault the
// driver recovered by a reset asks for one; a spent resource (remap failure) for a replacement.
constexpr std::array kCatalog = {
    XidMeaning{13, kWarn, S::kDriver, A::kRestartJob, "XID_13_GRAPHICS_EXCEPTION",
               "graphics engine exception (usually the application's fault)"},
    XidMeaning{31, kWarn, S::kDriver, A::kRestartJob, "XID_31_MEMORY_PAGE_FAULT",
               "GPU memory page fault (usually an illegal address in the application)"},
    XidMeaning{43, kWarn, S::kDriver, A::kRestartJob, "XID_43_GPU_STOPPED",
               "the GPU stopped processing (the application's fault; the GPU recovered)"},
    XidMeaning{45, kPass, S::kDriver, A::kNone, "XID_45_PREEMPTIVE_CLEANUP",
               "preemptive cleanup after an earlier error or a killed process"},
    XidMeaning{48, kFail, S::kMemory, A::kResetDevice, "XID_48_DOUBLE_BIT_ECC",
               "double-bit (uncorrectable) ECC error"},
    XidMeaning{61, kFail, S::kDriver, A::kResetDevice, "XID_61_MICROCONTROLLER_BREAKPOINT",
               "internal micro-controller breakpoint or warning"},
    XidMeaning{62, kFail, S::kDriver, A::kResetDevice, "XID_62_MICROCONTROLLER_HALT",
               "internal micro-controller halt"},
    XidMeaning{63, kWarn, S::kMemory, A::kResetDevice, "XID_63_ROW_REMAP_PENDING",
               "ECC page retirement or row remapping recorded; it takes effect at the next reset"},
    XidMeaning{64, kFail, S::kMemory, A::kReplaceDevice, "XID_64_ROW_REMAP_FAILURE",
               "ECC page retirement or row remapping failed"},
    XidMeaning{74, kFail, S::kInterconnect, A::kResetDevice, "XID_74_NVLINK_ERROR", "NVLink error"},
    XidMeaning{79, kFail, S::kDriver, A::kDrainNode, "XID_79_FALLEN_OFF_BUS",
               "the GPU has fallen off the bus"},
    XidMeaning{92, kWarn, S::kMemory, A::kNone, "XID_92_HIGH_SINGLE_BIT_ECC_RATE",
               "high single-bit ECC error rate"},
    XidMeaning{94, kWarn, S::kMemory, A::kRestartJob, "XID_94_CONTAINED_ECC",
               "contained ECC error: the affected application was stopped"},
    XidMeaning{95, kFail, S::kMemory, A::kResetDevice, "XID_95_UNCONTAINED_ECC",
               "uncontained ECC error: every application on the GPU was affected"},
    XidMeaning{119, kFail, S::kDriver, A::kResetDevice, "XID_119_GSP_RPC_TIMEOUT",
               "GSP RPC timeout"},
    XidMeaning{120, kFail, S::kDriver, A::kResetDevice, "XID_120_GSP_ERROR", "GSP error"},
    XidMeaning{140, kFail, S::kMemory, A::kResetDevice, "XID_140_UNRECOVERED_ECC",
               "unrecovered ECC error"},
};

}  // namespace

XidMeaning MeaningOfXid(int xid) {
  for (const XidMeaning& m : kCatalog)
    if (m.xid == xid) return m;
  return XidMeaning{
      xid,      kWarn,       S::kDriver,
      A::kNone, "XID_OTHER", "an XID this version does not classify (see NVIDIA's XID catalog)"};
}

}  // namespace xpuperf::health
