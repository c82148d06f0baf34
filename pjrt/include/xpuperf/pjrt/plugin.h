// A PJRT plugin (libtpu.so, the CUDA plugin, XLA's CPU plugin) opened with dlopen and checked
// against the PJRT C API header xpuperf is built with (pjrt/third_party/openxla, API 0.81).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "xpuperf/core/status.h"

struct PJRT_Api;

namespace xpuperf::pjrt {

// A client-create option or a plugin attribute (PJRT_NamedValue).
struct NamedValue {
  std::string name;
  std::variant<std::string, int64_t, std::vector<int64_t>, float, bool> value;

  // "name=value" with lists as [a, b, c]: for devices listings and error messages.
  std::string ToString() const;
};

struct ApiVersion {
  int major = 0;
  int minor = 0;
};

// The oldest minor version accepted: 0.57 rearranged the PJRT_Api fields, so a table from before it
// cannot be read with this header.
inline constexpr int kMinimumApiMinor = 57;

class Client;

// One plugin library, loaded once per process and never unloaded (PJRT plugins do not support
// dlclose). Thread-safe: PJRT calls are thread-safe by the C API's contract.
class Plugin {
 public:
  // dlopen(path), GetPjrtApi, the version checks and PJRT_Plugin_Initialize. The same path returns
  // the same plugin. Errors: kNotFound (no file), kUnsupported (not a PJRT plugin, or an API
  // version this build cannot read), kInternal (initialize failed, with the plugin's message).
  static Result<std::shared_ptr<Plugin>> Load(const std::string& path);

  const std::string& path() const { return path_; }
  ApiVersion version() const { return version_; }
  // PJRT_Plugin_Attributes (xla_version, stablehlo_current_version, ...); empty when the plugin
  // has no such call.
  const std::vector<NamedValue>& attributes() const { return attributes_; }

  // PJRT_Client_Create. Unknown option names fail with the plugin's INVALID_ARGUMENT message.
  Result<std::unique_ptr<Client>> CreateClient(const std::vector<NamedValue>& options) const;

  const PJRT_Api* api() const { return api_; }

 private:
  Plugin(std::string path, const PJRT_Api* api);

  std::string path_;
  const PJRT_Api* api_ = nullptr;
  ApiVersion version_;
  std::vector<NamedValue> attributes_;
};

}  // namespace xpuperf::pjrt
