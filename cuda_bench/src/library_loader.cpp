#include "xpuperf/cuda_bench/library_loader.h"

#include <cstdlib>
#include <utility>

namespace xpuperf::cuda_bench {

std::vector<std::string> CudaLibraryCandidates(const std::vector<std::string>& names) {
  std::vector<std::string> candidates = names;
  std::vector<std::string> roots;
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    roots.emplace_back(home);
  }
  roots.emplace_back("/usr/local/cuda");
  for (const std::string& root : roots) {
    for (const char* lib : {"/lib64/", "/lib/"}) {
      for (const std::string& name : names) {
        std::string path = root;
        path += lib;
        path += name;
        candidates.push_back(std::move(path));
      }
    }
  }
  return candidates;
}

}  // namespace xpuperf::cuda_bench
