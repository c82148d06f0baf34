// dlopen of vendor libraries: a missing library or symbol is reported with its name, never a crash.
#include "xpuperf/core/dynamic_library.h"

#include <gtest/gtest.h>

namespace xpuperf {
namespace {

TEST(DynamicLibraryTest, MissingLibraryIsUnsupportedWithItsName) {
  const auto library =
      DynamicLibrary::Open({"libxpuperf_missing.so.1", "/nonexistent/libxpuperf_missing.so"});
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(library.error().message.rfind("unsupported: libxpuperf_missing.so.1 not found (", 0),
            0u)
      << library.error().message;
}

TEST(DynamicLibraryTest, FindsSymbolsAndReportsMissingOnes) {
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

TEST(DynamicLibraryTest, MissingCodeChoosesTheCodeAndPrefix) {
  const auto library = DynamicLibrary::Open(
      {"libxpuperf_missing.so.1"},
      DynamicLibraryOptions{
          .bind_now = true, .unload = true, .missing_code = ErrorCode::kUnavailable});
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(library.error().message.rfind("libxpuperf_missing.so.1 not found (", 0), 0u)
      << library.error().message;
  EXPECT_EQ(DynamicLibrary::Open({}).error().message,
            "unsupported: library not found (no candidates)");
}

TEST(DynamicLibraryTest, FindSymbolIsNullWhenAbsentAndMovesKeepTheHandle) {
  auto library = DynamicLibrary::Open({"libc.so.6"}, DynamicLibraryOptions{.unload = true});
  ASSERT_TRUE(library.ok()) << library.error().message;
  EXPECT_EQ(library->FindSymbol("xpuperf_no_such_symbol"), nullptr);
  DynamicLibrary moved = std::move(*library);
  EXPECT_NE(moved.FindSymbol("strlen"), nullptr);
  EXPECT_EQ(moved.path(), "libc.so.6");
  auto other = DynamicLibrary::Open({"libm.so.6"}, DynamicLibraryOptions{.unload = true});
  ASSERT_TRUE(other.ok()) << other.error().message;
  moved = std::move(*other);  // closes libc's handle (still loaded: the process needs it)
  EXPECT_NE(moved.FindSymbol("cos"), nullptr);
}

}  // namespace
}  // namespace xpuperf
