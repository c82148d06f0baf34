#include "xpuperf/cuda_bench/library_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <utility>

namespace xpuperf::cuda_bench {

Result<DynamicLibrary> DynamicLibrary::Open(const std::vector<std::string>& candidates) {
  std::string last_error = "no candidates";
  for (const std::string& candidate : candidates) {
    if (void* handle = dlopen(candidate.c_str(), RTLD_LAZY | RTLD_LOCAL); handle != nullptr) {
      return DynamicLibrary(handle, candidate);
    }
    if (const char* error = dlerror(); error != nullptr) last_error = error;
  }
  const std::string name = candidates.empty() ? "library" : candidates.front();
  return MakeError(ErrorCode::kUnsupported,
                   "unsupported: " + name + " not found (" + last_error + ")");
}

DynamicLibrary::DynamicLibrary(DynamicLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), path_(std::move(other.path_)) {}

DynamicLibrary& DynamicLibrary::operator=(DynamicLibrary&& other) noexcept {
  if (this != &other) {
    handle_ = std::exchange(other.handle_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

// No dlclose: vendor libraries keep allocations and exit handlers that unloading would orphan
// (LeakSanitizer reports cuBLASLt's as leaks once it is unloaded).
DynamicLibrary::~DynamicLibrary() = default;

Result<void*> DynamicLibrary::Symbol(const char* name) const {
  dlerror();
  void* symbol = handle_ != nullptr ? dlsym(handle_, name) : nullptr;
  if (symbol == nullptr) {
    return MakeError(ErrorCode::kUnsupported,
                     std::string("unsupported: ") + name + " missing from " + path_);
  }
  return symbol;
}

std::vector<std::string> CudaLibraryCandidates(const std::vector<std::string>& names) {
  std::vector<std::string> candidates = names;
  std::vector<std::string> roots;
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    roots.emplace_back(home);
  }
  roots.emplace_back("/usr/local/cuda");
  for (const std::string& root : roots) {
    for (const char* lib : {"/lib64/", "/lib/"}) {
      for (const std::string& name : names) candidates.push_back(root + lib + name);
    }
  }
  return candidates;
}

}  // namespace xpuperf::cuda_bench
