// Internal to the TPU backend: xpuperf devices from sysfs chips or from the runtime's answers.
#pragma once

#include <vector>

#include "runtime_fetch.h"
#include "tpu_chips.h"
#include "xpuperf/core/device.h"

namespace xpuperf::tpu {

// One device per chip: "tpu<index>", model "TPU v5e", HBM from the generation table, the device
// node and holding pids as features ("node:/dev/vfio/0", "pid:4242").
std::vector<Device> DevicesFromChips(const std::vector<TpuChip>& chips);

// When sysfs shows no chip but a runtime answers: one device per chip the runtime status names
// (one per device ordinal without a status), HBM from tpu.runtime.hbm.memory.total.bytes.
// `cores_per_chip` receives the largest core count seen on a chip.
std::vector<Device> DevicesFromRuntime(RuntimeFetch& fetch, int& cores_per_chip);

}  // namespace xpuperf::tpu
