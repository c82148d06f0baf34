// This machine's host name, as results, snapshots and trace ids name it.
#pragma once

#include <string>

namespace xpuperf {

// gethostname(2); "localhost" when it fails.
std::string HostName();

}  // namespace xpuperf
