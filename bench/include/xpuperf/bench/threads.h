// OpenMP teams pinned one thread per CPU, so kernels do not migrate between samples.
#pragma once

#include <string>
#include <vector>

namespace xpuperf::bench {

// The logical CPUs this process could run on when it started (sched_getaffinity at the first
// call), ascending; later pinning of the calling thread does not change the answer.
std::vector<int> AllowedCpus();

// An OpenMP team pinned for the lifetime of the object: sets the team size (0 = one per allowed
// CPU) and pins member i to the i-th allowed CPU. libgomp keeps its threads between parallel
// regions of the same size, so the pinning holds for the kernels that follow. The destructor gives
// the calling thread (member 0) its original affinity back, so later work (OpenBLAS's own threads,
// which inherit it) is not confined to one CPU. Create on the main thread only.
class PinnedOpenMpTeam {
 public:
  explicit PinnedOpenMpTeam(int threads);
  ~PinnedOpenMpTeam();
  PinnedOpenMpTeam(const PinnedOpenMpTeam&) = delete;
  PinnedOpenMpTeam& operator=(const PinnedOpenMpTeam&) = delete;
  int size() const { return size_; }

 private:
  int size_ = 1;
};

}  // namespace xpuperf::bench
