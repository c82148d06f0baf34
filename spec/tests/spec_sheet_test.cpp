#include "xpuperf/spec/spec_sheet.h"

#include <gtest/gtest.h>

#include <set>

namespace xpuperf::spec {
namespace {

constexpr double kGiB = 1073741824.0;

const char* kMinimal = R"(device: Test chip
vendor: Acme
source: "datasheet rev 1"
peak_flops_per_second:
  bf16: 100e12
memory:
  bytes: 1e9
  bandwidth_bytes_per_second: 1e12
)";

void ExpectParseError(const std::string& yaml, const std::string& message) {
  auto sheet = ParseSpecSheet(yaml, "bad.yaml");
  ASSERT_FALSE(sheet.ok()) << yaml;
  EXPECT_EQ(sheet.error().code, ErrorCode::kParse);
  EXPECT_NE(sheet.error().message.find(message), std::string::npos) << sheet.error().message;
}

TEST(SpecSheetTest, LoadsEveryShippedSheet) {
  auto sheets = LoadSpecSheets(ShippedSpecSheetDir());
  ASSERT_TRUE(sheets.ok()) << sheets.error().ToString();
  std::set<std::string> devices;
  for (const SpecSheet& s : *sheets) {
    devices.insert(s.device);
    EXPECT_EQ(s.vendor, "Google");
    EXPECT_NE(s.source.find("https://cloud.google.com/tpu/docs/"), std::string::npos) << s.file;
    EXPECT_GT(s.peak_flops_per_second.at("bf16"), 0) << s.file;
    EXPECT_GT(s.memory_bytes, 0) << s.file;
  }
  EXPECT_EQ(devices, (std::set<std::string>{"TPU v4", "TPU v5e", "TPU v5p", "TPU v6e", "TPU 7x"}));
}

TEST(SpecSheetTest, ShippedNumbersMatchTheCloudTpuTable) {
  auto sheets = LoadSpecSheets(ShippedSpecSheetDir());
  ASSERT_TRUE(sheets.ok());
  const SpecSheet* v5e = FindSpecSheet(*sheets, "tpu v5e");
  ASSERT_NE(v5e, nullptr);
  EXPECT_DOUBLE_EQ(v5e->peak_flops_per_second.at("int8"), 394e12);
  EXPECT_DOUBLE_EQ(v5e->memory_bytes, 16 * kGiB);
  EXPECT_NEAR(*v5e->RidgePoint("bf16"), 240, 1);
  const SpecSheet* ironwood = FindSpecSheet(*sheets, "TPU 7x");
  ASSERT_NE(ironwood, nullptr);
  EXPECT_DOUBLE_EQ(ironwood->memory_bytes, 192 * kGiB);
  ASSERT_TRUE(ironwood->network_link.has_value());
  EXPECT_DOUBLE_EQ(ironwood->network_link->tx_bytes_per_second, 600e9);
  EXPECT_FALSE(ironwood->host_link.has_value());
  EXPECT_NEAR(*ironwood->RidgePoint("bf16"), 313, 1);
  EXPECT_NEAR(*FindSpecSheet(*sheets, "TPU v5p")->RidgePoint("bf16"), 166, 1);
  EXPECT_NEAR(*FindSpecSheet(*sheets, "TPU v6e")->RidgePoint("bf16"), 560, 1);
  EXPECT_FALSE(v5e->RidgePoint("fp64").has_value());
  EXPECT_EQ(FindSpecSheet(*sheets, "TPU v9"), nullptr);
}

TEST(SpecSheetTest, ParsesOptionalLinks) {
  auto sheet = ParseSpecSheet(std::string(kMinimal) +
                                  "host_link: {tx_bytes_per_second: 32e9, rx_bytes_per_second: "
                                  "31e9}\nnotes: measured elsewhere\n",
                              "ok.yaml");
  ASSERT_TRUE(sheet.ok()) << sheet.error().ToString();
  EXPECT_DOUBLE_EQ(sheet->host_link->rx_bytes_per_second, 31e9);
  EXPECT_EQ(sheet->notes, "measured elsewhere");
  EXPECT_EQ(sheet->file, "ok.yaml");
}

TEST(SpecSheetTest, RejectsMalformedSheetsWithFileAndLine) {
  ExpectParseError("device: [unclosed\n", "bad.yaml:");
  ExpectParseError("- a list\n", "a spec sheet is a YAML mapping");
  ExpectParseError("vendor: Acme\n", "missing required text field 'device'");
  std::string no_peak = kMinimal;
  no_peak.replace(no_peak.find("peak_flops_per_second"), 21, "peak_flops");
  ExpectParseError(no_peak, "peak_flops_per_second");
  std::string negative = kMinimal;
  negative.replace(negative.find("1e12"), 4, "-1e12");
  ExpectParseError(negative, "bad.yaml:8: 'memory.bandwidth_bytes_per_second' is negative");
  std::string text = kMinimal;
  text.replace(text.find("100e12"), 6, "fast");
  ExpectParseError(text, "bad.yaml:5: 'peak_flops_per_second.bf16' is not a number");
  ExpectParseError(std::string(kMinimal) + "network_link: {tx_bytes_per_second: 1}\n",
                   "missing required field 'network_link.rx_bytes_per_second'");
}

TEST(SpecSheetTest, MissingFileIsNotFound) {
  auto sheet = LoadSpecSheet("/no/such/sheet.yaml");
  ASSERT_FALSE(sheet.ok());
  EXPECT_EQ(sheet.error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(LoadSpecSheets("/no/such/dir").ok());
}

}  // namespace
}  // namespace xpuperf::spec
