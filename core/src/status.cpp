#include "xpuperf/core/status.h"

namespace xpuperf {

std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "invalid argument";
    case ErrorCode::kNotFound:
      return "not found";
    case ErrorCode::kUnsupported:
      return "unsupported";
    case ErrorCode::kUnavailable:
      return "unavailable";
    case ErrorCode::kIo:
      return "i/o error";
    case ErrorCode::kParse:
      return "parse error";
    case ErrorCode::kInternal:
      return "internal error";
  }
  return "unknown error";
}

std::string Error::ToString() const { return std::string(ErrorCodeName(code)) + ": " + message; }

}  // namespace xpuperf
