#include "xpuperf/bench/transfer.h"

#include <fmt/format.h>

namespace xpuperf::bench {

std::string_view HostMemoryKindName(HostMemoryKind kind) {
  switch (kind) {
    case HostMemoryKind::kPageable:
      return "pageable";
    case HostMemoryKind::kPinned:
      return "pinned";
  }
  return "unknown";
}

std::string_view CopyDirectionName(CopyDirection direction) {
  switch (direction) {
    case CopyDirection::kHostToDevice:
      return "h2d";
    case CopyDirection::kDeviceToHost:
      return "d2h";
    case CopyDirection::kBidirectional:
      return "bidir";
    case CopyDirection::kDeviceToDevice:
      return "d2d";
  }
  return "unknown";
}

Result<HostMemoryKind> ParseHostMemoryKind(std::string_view name) {
  for (HostMemoryKind kind : {HostMemoryKind::kPageable, HostMemoryKind::kPinned}) {
    if (HostMemoryKindName(kind) == name) return kind;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   fmt::format("unknown host memory kind '{}' (known: pageable, pinned)", name));
}

Result<CopyDirection> ParseCopyDirection(std::string_view name) {
  for (CopyDirection direction : {CopyDirection::kHostToDevice, CopyDirection::kDeviceToHost,
                                  CopyDirection::kBidirectional, CopyDirection::kDeviceToDevice}) {
    if (CopyDirectionName(direction) == name) return direction;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   fmt::format("unknown copy direction '{}' (known: h2d, d2h, bidir, d2d)", name));
}

}  // namespace xpuperf::bench
