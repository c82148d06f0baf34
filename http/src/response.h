// Serialisation of answers on the wire.
#pragma once

#include <string>

#include "xpuperf/http/server.h"

namespace xpuperf::http {

// Status line and headers, with Content-Length, Date and, unless `keep_alive`, Connection: close.
std::string ResponseHead(const Response& response, bool keep_alive);
// A whole plain-text answer the event loop sends before closing (parser refusals, 408).
// `allow` is the Allow header of a 405.
std::string ErrorAnswer(int status, const std::string& reason, const std::string& allow = "");

}  // namespace xpuperf::http
