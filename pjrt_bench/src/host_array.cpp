#include "host_array.h"

#include <random>

namespace xpuperf::pjrt_bench {

void HostArray::FillRandom(uint64_t seed) {
  std::mt19937_64 generator(seed);
  if (pjrt::IsInteger(type_)) {
    std::uniform_int_distribution<int> values(-8, 8);
    for (size_t i = 0; i < count_; ++i) Set(i, values(generator));
  } else {
    std::uniform_real_distribution<double> values(-1.0, 1.0);
    for (size_t i = 0; i < count_; ++i) Set(i, values(generator));
  }
}

}  // namespace xpuperf::pjrt_bench
