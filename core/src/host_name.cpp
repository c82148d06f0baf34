#include "xpuperf/core/host_name.h"

#include <unistd.h>

namespace xpuperf {

std::string HostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

}  // namespace xpuperf
