#include "xpuperf/pjrt/plugin.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <mutex>

#include "api_call.h"
#include "client_internal.h"
#include "named_value.h"
#include "xpuperf/core/dynamic_library.h"
#include "xpuperf/core/shared_library_file.h"

namespace xpuperf::pjrt {
namespace {

// The last entry this build calls; a shorter table belongs to a plugin too old to drive.
constexpr size_t kRequiredTableEnd = offsetof(PJRT_Api, PJRT_Buffer_ReadyEvent) + sizeof(void*);

Status CheckApi(const std::string& path, const PJRT_Api* api) {
  constexpr size_t kVersionEnd = offsetof(PJRT_Api, pjrt_api_version) + sizeof(PJRT_Api_Version);
  if (api->struct_size < kVersionEnd) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("{}: PJRT_Api of {} bytes has no version (not a PJRT plugin?)",
                                 path, api->struct_size));
  }
  const PJRT_Api_Version& v = api->pjrt_api_version;
  if (v.major_version != PJRT_API_MAJOR || v.minor_version < kMinimumApiMinor) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("{}: PJRT API {}.{} is not supported (this build reads {}.{} to "
                                 "{}.{} and newer minors)",
                                 path, v.major_version, v.minor_version, PJRT_API_MAJOR,
                                 kMinimumApiMinor, PJRT_API_MAJOR, PJRT_API_MINOR));
  }
  if (api->struct_size < kRequiredTableEnd) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("{}: PJRT_Api table of {} bytes lacks calls this build needs "
                                 "({} bytes)",
                                 path, api->struct_size, kRequiredTableEnd));
  }
  return Status::Ok();
}

// The library stays open for the process: PJRT plugins do not support being unloaded.
Result<const PJRT_Api*> OpenLibrary(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return MakeError(errno == ENOENT ? ErrorCode::kNotFound : ErrorCode::kIo,
                     fmt::format("PJRT plugin {}: {}", path, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     fmt::format("PJRT plugin {}: not a regular file", path));
  }
  // bind_now as XLA's own loader: a plugin with unresolved symbols fails here, not mid-run.
  DynamicLibraryOptions options;
  options.bind_now = true;
  // A path with a slash is opened as given, never searched for.
  const std::string candidate = path.find('/') == std::string::npos ? "./" + path : path;
  // Read before loading: a truncated plugin would fault in the loader, another library would run
  // its constructors in this process.
  if (Status usable = CheckSharedLibraryFile(candidate, {"GetPjrtApi"}); !usable.ok()) {
    if (usable.error().message.starts_with("it defines none of")) {
      return MakeError(ErrorCode::kUnsupported,
                       fmt::format("{} is not a PJRT plugin: it exports no GetPjrtApi", path));
    }
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("PJRT plugin {}: cannot load: {}", path, usable.error().message));
  }
  auto library = DynamicLibrary::Open({candidate}, options);
  if (!library.ok()) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("PJRT plugin {}: cannot load: {}", path, library.error().message));
  }
  using GetApiFunction = const PJRT_Api* (*)();
  GetApiFunction get_api = nullptr;
  if (!library->Bind(&get_api, "GetPjrtApi").ok()) {
    return MakeError(ErrorCode::kUnsupported,
                     fmt::format("{} is not a PJRT plugin: it exports no GetPjrtApi", path));
  }
  static auto* open_libraries = new std::vector<DynamicLibrary>();  // never closed
  open_libraries->push_back(std::move(library).value());
  const PJRT_Api* api = get_api();
  if (api == nullptr) {
    return MakeError(ErrorCode::kUnsupported, fmt::format("{}: GetPjrtApi returned null", path));
  }
  return api;
}

}  // namespace

Plugin::Plugin(std::string path, const PJRT_Api* api) : path_(std::move(path)), api_(api) {
  version_ = {api->pjrt_api_version.major_version, api->pjrt_api_version.minor_version};
}

Result<std::shared_ptr<Plugin>> Plugin::Load(const std::string& path) {
  static std::mutex mutex;
  static auto* loaded = new std::map<std::string, std::shared_ptr<Plugin>>();
  std::lock_guard lock(mutex);
  char resolved[PATH_MAX];
  const std::string key = ::realpath(path.c_str(), resolved) != nullptr ? resolved : path;
  if (auto it = loaded->find(key); it != loaded->end()) return it->second;

  XPUPERF_ASSIGN_OR_RETURN(const PJRT_Api* api, OpenLibrary(path));
  XPUPERF_RETURN_IF_ERROR(CheckApi(path, api));
  std::shared_ptr<Plugin> plugin(new Plugin(path, api));
  XPUPERF_PJRT_ARGS(PJRT_Plugin_Initialize_Args, init);
  if (HasEntry(api, offsetof(PJRT_Api, PJRT_Plugin_Initialize))) {
    XPUPERF_PJRT_CALL(api, PJRT_Plugin_Initialize, init);
  }
  if (HasEntry(api, offsetof(PJRT_Api, PJRT_Plugin_Attributes)) &&
      api->PJRT_Plugin_Attributes != nullptr) {
    XPUPERF_PJRT_ARGS(PJRT_Plugin_Attributes_Args, attributes);
    if (TakeError(api, api->PJRT_Plugin_Attributes(&attributes), "PJRT_Plugin_Attributes").ok()) {
      plugin->attributes_ = FromPjrt(attributes.attributes, attributes.num_attributes);
    }
  }
  (*loaded)[key] = plugin;
  return plugin;
}

Result<std::unique_ptr<Client>> Plugin::CreateClient(const std::vector<NamedValue>& options) const {
  std::vector<PJRT_NamedValue> pjrt_options = ToPjrt(options);
  XPUPERF_PJRT_ARGS(PJRT_Client_Create_Args, create);
  create.create_options = pjrt_options.data();
  create.num_options = pjrt_options.size();
  XPUPERF_PJRT_CALL(api_, PJRT_Client_Create, create);
  return MakeClient(api_, create.client);
}

}  // namespace xpuperf::pjrt
