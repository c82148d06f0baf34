// Tables at the terminal: long names lose their middle, never their ends; a line width shrinks the
// widest text column; whole tables where there is no terminal.
#include "xpuperf/render/text_table.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace xpuperf::render {
namespace {

TEST(TextTableTest, LongNamesKeepTheirEnds) {
  // Two kernels that differ only at the end stay two names.
  const std::string a = "ampere_sgemm_128x64_tn_splitK_with_a_long_common_prefix_variant_a";
  const std::string b = "ampere_sgemm_128x64_tn_splitK_with_a_long_common_prefix_variant_b";
  EXPECT_NE(ElideMiddle(a, 30), ElideMiddle(b, 30));
  EXPECT_EQ(ElideMiddle(a, 30), "ampere_sgemm_1...fix_variant_a");
  EXPECT_EQ(DisplayWidth(ElideMiddle(a, 30)), 30u);
  EXPECT_EQ(ElideMiddle("short", 30), "short");
  // Multi-byte characters are counted and cut as characters.
  EXPECT_EQ(ElideMiddle("αβγδεζηθικλμ", 9), "αβγ...κλμ");
}

TEST(TextTableTest, ALineWidthShrinksTheWidestTextColumn) {
  TextTable t("Kernels", {{"name"}, {"time", TextTable::Align::kRight}, {"what"}});
  t.AddRow({std::string(70, 'k') + "_end", "1.0ms", "a description of forty characters ....."});
  const std::string whole = t.Render(200);
  EXPECT_NE(whole.find(std::string(70, 'k') + "_end"), std::string::npos);
  const std::string narrow = t.Render(200, 80);
  for (size_t start = 0, end; (end = narrow.find('\n', start)) != std::string::npos;
       start = end + 1) {
    EXPECT_LE(DisplayWidth(narrow.substr(start, end - start)), 80u) << narrow;
  }
  EXPECT_NE(narrow.find("_end"), std::string::npos);  // its end is kept
  EXPECT_NE(narrow.find("1.0ms"), std::string::npos);
  // Not below 16 columns for a text column: a line may stay wider than a tiny terminal.
  EXPECT_NE(t.Render(200, 20).find("1.0ms"), std::string::npos);
}

TEST(TextTableTest, NoTerminalMeansWholeTables) {
  if (isatty(STDOUT_FILENO) != 0) GTEST_SKIP() << "standard output is a terminal here";
  EXPECT_EQ(TerminalColumns(), 0u);
  EXPECT_EQ(DefaultLineWidth(), 0u);
}

}  // namespace
}  // namespace xpuperf::render
