// Where the CUDA toolkit's libraries are looked for (DynamicLibrary itself: core/tests).
#include "xpuperf/cuda_bench/library_loader.h"

#include <gtest/gtest.h>

#include <cstdlib>

#if XPUPERF_HAVE_CUDA
#include "cuda/cublaslt.h"
#include "cuda/nccl.h"
#endif

namespace xpuperf::cuda_bench {
namespace {

TEST(LibraryLoaderTest, CandidatesAddTheToolkitDirectories) {
  const char* saved = std::getenv("CUDA_HOME");
  const std::string saved_value = saved != nullptr ? saved : "";
  unsetenv("CUDA_HOME");
  EXPECT_EQ(CudaLibraryCandidates({"libfoo.so.1", "libfoo.so"}),
            (std::vector<std::string>{
                "libfoo.so.1", "libfoo.so", "/usr/local/cuda/lib64/libfoo.so.1",
                "/usr/local/cuda/lib64/libfoo.so", "/usr/local/cuda/lib/libfoo.so.1",
                "/usr/local/cuda/lib/libfoo.so"}));
  setenv("CUDA_HOME", "/opt/cuda", 1);
  EXPECT_EQ(CudaLibraryCandidates({"libbar.so"}),
            (std::vector<std::string>{"libbar.so", "/opt/cuda/lib64/libbar.so",
                                      "/opt/cuda/lib/libbar.so", "/usr/local/cuda/lib64/libbar.so",
                                      "/usr/local/cuda/lib/libbar.so"}));
  if (saved != nullptr) {
    setenv("CUDA_HOME", saved_value.c_str(), 1);
  } else {
    unsetenv("CUDA_HOME");
  }
}

#if XPUPERF_HAVE_CUDA
TEST(LibraryLoaderTest, CublasLtAndNcclLoadersReportAMissingLibrary) {
  const auto lt = LoadCublasLtFrom({"libcublasLt_missing.so.13"});
  ASSERT_FALSE(lt.ok());
  EXPECT_EQ(lt.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(lt.error().message.rfind("unsupported: libcublasLt_missing.so.13 not found", 0), 0u);
  const auto nccl = LoadNcclFrom({"libnccl_missing.so.2"});
  ASSERT_FALSE(nccl.ok());
  EXPECT_EQ(nccl.error().message.rfind("unsupported: libnccl_missing.so.2 not found", 0), 0u);
  // A library without the symbols: every one is looked up, the first missing one is named.
  const auto wrong = LoadCublasLtFrom({"libc.so.6"});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message, "unsupported: cublasLtCreate missing from libc.so.6");
}

TEST(LibraryLoaderTest, TheToolkitsCublasLtAndNcclHaveEverySymbol) {
  // The CUDA toolkit this was built with ships both libraries; skipped where it does not.
  const auto lt = LoadCublasLtFrom(CudaLibraryCandidates({"libcublasLt.so.13", "libcublasLt.so"}));
  if (!lt.ok()) GTEST_SKIP() << lt.error().message;
  EXPECT_GE(lt->GetVersion(), 130000u);
  const auto nccl = LoadNcclFrom(CudaLibraryCandidates({"libnccl.so.2"}));
  if (!nccl.ok()) GTEST_SKIP() << nccl.error().message;
  int version = 0;
  EXPECT_EQ(nccl->GetVersion(&version), ncclSuccess);
  EXPECT_GT(version, 20000);
}
#endif

}  // namespace
}  // namespace xpuperf::cuda_bench
