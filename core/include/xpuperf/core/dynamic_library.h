// A shared library opened with dlopen at run time, so that nothing links against vendor libraries
// (NVML, cuBLASLt, NCCL, ...) and a machine without them reports why instead of failing to start.
// The one wrapper of dlopen/dlsym in xpuperf. A DynamicLibrary is movable, not copyable; lookups
// are const and thread-safe (dlsym is).
#pragma once

#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf {

struct DynamicLibraryOptions {
  // RTLD_NOW instead of RTLD_LAZY: every undefined symbol is resolved at open, so a broken library
  // fails there rather than at its first call.
  bool bind_now = false;
  // dlclose on destruction. Off by default: vendor libraries keep allocations and exit handlers
  // that unloading would orphan (LeakSanitizer reports cuBLASLt's as leaks once it is unloaded).
  bool unload = false;
  // The code of a missing library or symbol. kUnsupported messages start with "unsupported: ".
  ErrorCode missing_code = ErrorCode::kUnsupported;
  // A candidate that is a path to an existing file (one the user chose, through an environment
  // variable or an option) is read before dlopen (CheckSharedLibraryFile): it must be a complete
  // ELF shared object for this machine defining at least one of these symbols (any, when empty).
  // So a truncated file cannot fault in the loader and another library never runs its
  // constructors. Names the loader searches for (no '/') are the system's and are not read.
  std::vector<std::string> expected_symbols;
  // What the library is, for that check's message: "<path> is not a usable NVML library: ...".
  std::string kind = "shared library";
};

class DynamicLibrary {
 public:
  // Tries each candidate in order (names go through the dynamic linker's search, paths are opened
  // as given). On failure: options.missing_code with "[unsupported: ]<first candidate> not found
  // (<dlerror of the last>)", or, for an existing file that fails the check above, "[unsupported:
  // ]<path> is not a usable <kind>: <why>" (nothing further is tried).
  static Result<DynamicLibrary> Open(const std::vector<std::string>& candidates,
                                     const DynamicLibraryOptions& options = {});
  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  // The file that was opened.
  const std::string& path() const { return path_; }
  // The symbol's address, or nullptr when the library does not define it.
  void* FindSymbol(const char* name) const;
  // options.missing_code with "[unsupported: ]<symbol> missing from <path>".
  Result<void*> Symbol(const char* name) const;
  // Typed lookup: Bind(&fn, "cublasLtCreate") with fn declared as decltype(&cublasLtCreate).
  template <typename F>
  Status Bind(F* function, const char* name) const {
    Result<void*> symbol = Symbol(name);
    if (!symbol.ok()) return symbol.error();
    *function = reinterpret_cast<F>(*symbol);
    return Status::Ok();
  }

 private:
  DynamicLibrary(void* handle, std::string path, const DynamicLibraryOptions& options)
      : handle_(handle), path_(std::move(path)), options_(options) {}
  void Close();
  void* handle_ = nullptr;
  std::string path_;
  DynamicLibraryOptions options_;
};

}  // namespace xpuperf
