// Libraries that look like PJRT plugins to dlopen but are wrong in one way each, for the loader's
// error paths: built once per variant with FAKE_PJRT_VARIANT set (see ../../CMakeLists.txt).
//   1 wrong_major   PJRT_Api reports API 1.81
//   2 old_minor     PJRT_Api reports API 0.40 (before the 0.57 rearrangement)
//   3 short_table   a PJRT_Api that ends after its version
//   4 not_a_plugin  no GetPjrtApi at all
//   5 hangs         GetPjrtApi never returns (a plugin stuck waiting for a device or a server)
#include <unistd.h>

#include "pjrt_c_api.h"

#if FAKE_PJRT_VARIANT != 4
namespace {
PJRT_Api MakeApi() {
  PJRT_Api api{};
  api.struct_size = PJRT_Api_STRUCT_SIZE;
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.major_version = PJRT_API_MAJOR;
  api.pjrt_api_version.minor_version = PJRT_API_MINOR;
#if FAKE_PJRT_VARIANT == 1
  api.pjrt_api_version.major_version = 1;
#elif FAKE_PJRT_VARIANT == 2
  api.pjrt_api_version.minor_version = 40;
#elif FAKE_PJRT_VARIANT == 3
  api.struct_size = offsetof(PJRT_Api, pjrt_api_version) + sizeof(PJRT_Api_Version);
#endif
  return api;
}
const PJRT_Api kApi = MakeApi();
}  // namespace

extern "C" __attribute__((visibility("default"))) const PJRT_Api* GetPjrtApi() {
#if FAKE_PJRT_VARIANT == 5
  for (;;) pause();
#endif
  return &kApi;
}
#else
extern "C" __attribute__((visibility("default"))) int NotAPjrtPlugin() { return 42; }
#endif
