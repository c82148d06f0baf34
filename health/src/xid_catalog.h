// What an NVIDIA XID means for the GPU's health: NVIDIA's XID catalog ("XID Errors", the driver's
// documentation), as the status, code, subsystem and action of a verdict.
#pragma once

#include <string_view>

#include "xpuperf/health/verdict.h"

namespace xpuperf::health {

struct XidMeaning {
  int xid = 0;
  Status status = Status::kWarn;
  Subsystem subsystem = Subsystem::kDriver;
  Action action = Action::kNone;
  std::string_view code;     // "XID_79_FALLEN_OFF_BUS"
  std::string_view summary;  // "the GPU has fallen off the bus"
};

// The meaning of a known XID; an unknown one is a warning that names it.
XidMeaning MeaningOfXid(int xid);

}  // namespace xpuperf::health
