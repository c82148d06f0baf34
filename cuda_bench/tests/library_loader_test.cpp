// dlopen of vendor libraries: a missing library or symbol is "unsupported", never a crash.
#include "xpuperf/cuda_bench/library_loader.h"

#include <gtest/gtest.h>

#include <cstdlib>

#if XPUPERF_HAVE_CUDA
#include "cuda/cublaslt.h"
#include "cuda/nccl.h"
#endif

namespace xpuperf::cuda_bench {
namespace {

TEST(LibraryLoaderTest, MissingLibraryIsUnsupportedWithItsName) {
  const auto library =
      DynamicLibrary::Open({"libxpuperf_missing.so.1", "/nonexistent/libxpuperf_missing.so"});
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(library.error().message.rfind("unsupported: libxpuperf_missing.so.1 not found (", 0),
            0u)
      << library.error().message;
}

TEST(LibraryLoaderTest, FindsSymbolsAndReportsMissingOnes) {
  auto library = DynamicLibrary::Open({"libxpuperf_missing.so", "libc.so.6"});
  ASSERT_TRUE(library.ok()) << library.error().message;
  EXPECT_EQ(library->path(), "libc.so.6");
  int (*abs_function)(int) = nullptr;
  ASSERT_TRUE(library->Bind(&abs_function, "abs").ok());
  EXPECT_EQ(abs_function(-7), 7);
  const auto missing = library->Symbol("xpuperf_no_such_symbol");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(missing.error().message, "unsupported: xpuperf_no_such_symbol missing from libc.so.6");
}

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
