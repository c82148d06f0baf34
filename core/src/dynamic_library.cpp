#include "xpuperf/core/dynamic_library.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <utility>

#include "xpuperf/core/shared_library_file.h"

namespace xpuperf {
namespace {

std::string MissingPrefix(const DynamicLibraryOptions& options) {
  return options.missing_code == ErrorCode::kUnsupported ? "unsupported: " : "";
}

}  // namespace

Result<DynamicLibrary> DynamicLibrary::Open(const std::vector<std::string>& candidates,
                                            const DynamicLibraryOptions& options) {
  const int flags = (options.bind_now ? RTLD_NOW : RTLD_LAZY) | RTLD_LOCAL;
  std::string last_error = "no candidates";
  for (const std::string& candidate : candidates) {
    struct stat info {};
    if (candidate.find('/') != std::string::npos && ::stat(candidate.c_str(), &info) == 0) {
      if (Status usable = CheckSharedLibraryFile(candidate, options.expected_symbols);
          !usable.ok()) {
        return MakeError(options.missing_code, MissingPrefix(options) + candidate +
                                                   " is not a usable " + options.kind + ": " +
                                                   usable.error().message);
      }
    }
    dlerror();
    if (void* handle = dlopen(candidate.c_str(), flags); handle != nullptr) {
      return DynamicLibrary(handle, candidate, options);
    }
    const char* error = dlerror();
    last_error = error != nullptr ? error : "dlopen failed";
  }
  const std::string name = candidates.empty() ? "library" : candidates.front();
  return MakeError(options.missing_code,
                   MissingPrefix(options) + name + " not found (" + last_error + ")");
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      path_(std::move(other.path_)),
      options_(std::move(other.options_)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    Close();
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
    options_ = std::move(other.options_);
  }
  return *this;
}

DynamicLibrary::~DynamicLibrary() { Close(); }

void DynamicLibrary::Close() {
  if (handle_ != nullptr && options_.unload) dlclose(handle_);
  handle_ = nullptr;
}

void* DynamicLibrary::FindSymbol(const char* name) const {
  return handle_ != nullptr ? dlsym(handle_, name) : nullptr;
}

Result<void*> DynamicLibrary::Symbol(const char* name) const {
  void* symbol = FindSymbol(name);
  if (symbol == nullptr) {
    return MakeError(options_.missing_code,
                     MissingPrefix(options_) + name + " missing from " + path_);
  }
  return symbol;
}

}  // namespace xpuperf
