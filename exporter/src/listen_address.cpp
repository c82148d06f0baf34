#include <charconv>

#include "xpuperf/exporter/metrics_server.h"

namespace xpuperf::exporter {

Result<ListenAddress> ParseListenAddress(std::string_view text) {
  auto bad = [&](std::string why) {
    return MakeError(ErrorCode::kInvalidArgument, "--listen '" + std::string(text) +
                                                      "': " + std::move(why) +
                                                      " (use HOST:PORT, [IPV6]:PORT or :PORT)");
  };
  ListenAddress address;
  std::string_view port_text;
  if (text.starts_with('[')) {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad("an IPv6 address needs ]:PORT");
    }
    address.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else if (const size_t colon = text.rfind(':'); colon != std::string_view::npos) {
    address.host = std::string(text.substr(0, colon));
    if (address.host.find(':') != std::string::npos) return bad("write IPv6 addresses in []");
    if (address.host.empty()) address.host = "0.0.0.0";  // ":PORT" opens it to the network
    port_text = text.substr(colon + 1);
  } else {
    address.host = "127.0.0.1";
    port_text = text;
  }
  int port = -1;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535) {
    return bad("the port must be a number from 0 to 65535");
  }
  if (address.host.empty()) return bad("empty host");
  address.port = port;
  return address;
}

}  // namespace xpuperf::exporter
