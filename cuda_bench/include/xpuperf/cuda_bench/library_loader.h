// Vendor libraries of the CUDA toolkit (cuBLASLt, NCCL) are opened with xpuperf::DynamicLibrary
// (xpuperf/core/dynamic_library.h) at run time, so that nothing links against them and a machine
// without them reports "unsupported: <library> not found". A library, once opened, stays loaded
// until the process exits (the default DynamicLibraryOptions).
#pragma once

#include <string>
#include <vector>

#include "xpuperf/core/dynamic_library.h"

namespace xpuperf::cuda_bench {

// The candidates for a library: its soname and unversioned name, then the same under the CUDA
// toolkit's lib64 and lib directories (/usr/local/cuda, or $CUDA_HOME).
std::vector<std::string> CudaLibraryCandidates(const std::vector<std::string>& names);

}  // namespace xpuperf::cuda_bench
