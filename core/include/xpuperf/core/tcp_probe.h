// Telling "nothing listens there" from "something else listens there" after a gRPC call failed:
// the TPU runtime client and the XLA profiler client name an HTTP server (or any non-gRPC
// listener) on the port as such, instead of "no server answers".
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace xpuperf {

// Whether a gRPC UNAVAILABLE detail says the transport failed (refused, reset, closed, an HTTP/1
// answer) rather than a server that answered UNAVAILABLE itself.
bool IsGrpcTransportFailure(std::string_view detail);

// Whether anything accepts a TCP connection at target ("host:port", "[v6]:port"), trying every
// address the host resolves to (localhost: ::1 and 127.0.0.1), each for at most `timeout`.
bool AcceptsTcpConnections(const std::string& target, std::chrono::milliseconds timeout);

}  // namespace xpuperf
