// Vendor libraries (cuBLASLt, NCCL) opened with dlopen at run time, so that nothing links against
// them and a machine without them reports "unsupported: <library> not found". A library, once
// opened, stays loaded until the process exits.
#pragma once

#include <string>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf::cuda_bench {

class DynamicLibrary {
 public:
  // Tries each candidate in order (names go through the dynamic linker's search, paths are opened
  // as given). kUnsupported "unsupported: <first candidate> not found (<dlerror of the last>)".
  static Result<DynamicLibrary> Open(const std::vector<std::string>& candidates);
  DynamicLibrary(DynamicLibrary&& other) noexcept;
  DynamicLibrary& operator=(DynamicLibrary&& other) noexcept;
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;
  ~DynamicLibrary();

  // The file that was opened.
  const std::string& path() const { return path_; }
  // kUnsupported "unsupported: <symbol> missing from <path>".
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
  DynamicLibrary(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void* handle_ = nullptr;
  std::string path_;
};

// The candidates for a library: its soname and unversioned name, then the same under the CUDA
// toolkit's lib64 and lib directories (/usr/local/cuda, or $CUDA_HOME).
std::vector<std::string> CudaLibraryCandidates(const std::vector<std::string>& names);

}  // namespace xpuperf::cuda_bench
