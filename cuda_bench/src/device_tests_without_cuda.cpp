// The device tests of a build without CUDA: each says so.
#include "xpuperf/cuda_bench/device_tests.h"

namespace xpuperf::cuda_bench {

#if !XPUPERF_HAVE_CUDA
Result<DeviceMemoryTestResult> RunDeviceMemoryTest(const std::string&,
                                                   const DeviceMemoryTestOptions&) {
  return MakeError(ErrorCode::kUnsupported, "unsupported: built without CUDA");
}

Result<DeviceStressResult> RunDeviceStress(const std::string&, uint64_t, const std::atomic<bool>&) {
  return MakeError(ErrorCode::kUnsupported, "unsupported: built without CUDA");
}
#endif

}  // namespace xpuperf::cuda_bench
