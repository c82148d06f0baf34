// Context on an error, one way for every component.
#pragma once

#include <string>
#include <string_view>

#include "xpuperf/core/status.h"

namespace xpuperf {

// The same error, its message after `context` and ": " ("trace.json: malformed JSON at byte 12"):
// the one way to say where an error happened (the file, the backend, the benchmark point).
inline Error WithContext(const Error& error, std::string_view context) {
  std::string message(context);
  message += ": ";
  message += error.message;
  return Error{error.code, std::move(message)};
}

}  // namespace xpuperf
