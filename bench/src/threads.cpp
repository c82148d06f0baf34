#include "xpuperf/bench/threads.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>

namespace xpuperf::bench {

namespace {

std::vector<int> ReadAllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return {0};
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

void SetCallingThreadCpus(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

}  // namespace

std::vector<int> AllowedCpus() {
  static const std::vector<int> cpus = ReadAllowedCpus();
  return cpus;
}

PinnedOpenMpTeam::~PinnedOpenMpTeam() { SetCallingThreadCpus(AllowedCpus()); }

PinnedOpenMpTeam::PinnedOpenMpTeam(int threads) {
  const std::vector<int> cpus = AllowedCpus();
  const int team = threads > 0 ? threads : static_cast<int>(cpus.size());
  size_ = team;
  omp_set_dynamic(0);
  omp_set_num_threads(team);
#pragma omp parallel num_threads(team)
  {
    const int index = omp_get_thread_num();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[static_cast<size_t>(index) % cpus.size()], &set);
    pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
  }
}

}  // namespace xpuperf::bench
