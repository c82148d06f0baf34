#include "xpuperf/spec/spec_sheet.h"

#include <gtest/gtest.h>

#include <map>
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
    if (s.vendor == "Google") {
      EXPECT_NE(s.source.find("https://cloud.google.com/tpu/docs/"), std::string::npos) << s.file;
    } else if (s.vendor == "AMD") {
      EXPECT_NE(s.source.find("AMD Instinct"), std::string::npos) << s.file;
      EXPECT_NE(s.source.find("data sheet"), std::string::npos) << s.file;
    } else {
      EXPECT_EQ(s.vendor, "NVIDIA") << s.file;
      EXPECT_NE(s.source.find("NVIDIA"), std::string::npos) << s.file;
      EXPECT_NE(s.source.find("datasheet"), std::string::npos) << s.file;
    }
    EXPECT_GT(s.peak_flops_per_second.at("bf16"), 0) << s.file;
    EXPECT_GT(s.memory_bytes, 0) << s.file;
    EXPECT_FALSE(s.computed);
    // Every peak names where it comes from.
    for (const auto& [precision, peak] : s.peak_flops_per_second) {
      EXPECT_FALSE(s.peak_sources.at(precision).empty()) << s.file << " " << precision;
    }
  }
  EXPECT_EQ(devices,
            (std::set<std::string>{"TPU v4", "TPU v5e", "TPU v5p", "TPU v6e", "TPU 7x",
                                   "NVIDIA H100 SXM", "NVIDIA H100 PCIe", "NVIDIA B200",
                                   "NVIDIA L40S", "NVIDIA H200", "NVIDIA A100 SXM 80GB",
                                   "NVIDIA A100 SXM 40GB", "NVIDIA L4", "AMD Instinct MI300X"}));
}

// Dense datasheet figures: the sparsity figures of tf32/bf16/fp16/fp8/int8 halved.
TEST(SpecSheetTest, NvidiaHopperSheetsHoldTheDatasheetFigures) {
  auto sheets = LoadSpecSheets(ShippedSpecSheetDir());
  ASSERT_TRUE(sheets.ok());
  for (const char* model : {"NVIDIA H100 SXM", "NVIDIA H200"}) {
    const SpecSheet* s = FindSpecSheet(*sheets, model);
    ASSERT_NE(s, nullptr) << model;
    const std::map<std::string, double> expected = {
        {"fp64", 34e12},    {"fp64_tensor", 67e12}, {"fp32", 67e12},  {"tf32", 494.5e12},
        {"bf16", 989.5e12}, {"fp16", 989.5e12},     {"fp8", 1979e12}, {"int8", 1979e12}};
    EXPECT_EQ(s->peak_flops_per_second, expected) << model;
    // PCIe Gen5 x16: 128 GB/s both directions together; NVLink 4: 900 GB/s per GPU together.
    ASSERT_TRUE(s->host_link.has_value());
    EXPECT_DOUBLE_EQ(s->host_link->tx_bytes_per_second, 64e9);
    EXPECT_DOUBLE_EQ(s->host_link->rx_bytes_per_second, 64e9);
    EXPECT_EQ(s->host_link->name, "PCIe Gen5 x16");
    EXPECT_NE(s->host_link->source.find("PCIe Gen5 128 GB/s"), std::string::npos);
    ASSERT_TRUE(s->network_link.has_value());
    EXPECT_DOUBLE_EQ(s->network_link->tx_bytes_per_second, 450e9);
    EXPECT_DOUBLE_EQ(s->network_link->rx_bytes_per_second, 450e9);
    EXPECT_NE(s->network_link->source.find("NVLink 900 GB/s"), std::string::npos);
  }
  const SpecSheet* h100 = FindSpecSheet(*sheets, "NVIDIA H100 SXM");
  EXPECT_DOUBLE_EQ(h100->memory_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(h100->memory_bandwidth_bytes_per_second, 3.35e12);
  EXPECT_EQ(h100->memory_type, "HBM3");
  EXPECT_NEAR(*h100->RidgePoint("bf16"), 295, 1);  // benchmarks-and-roofline.md section 8
  const SpecSheet* h200 = FindSpecSheet(*sheets, "NVIDIA H200");
  EXPECT_DOUBLE_EQ(h200->memory_bytes, 141 * kGiB);
  EXPECT_DOUBLE_EQ(h200->memory_bandwidth_bytes_per_second, 4.8e12);
  EXPECT_EQ(h200->memory_type, "HBM3e");
  EXPECT_NEAR(*h200->RidgePoint("bf16"), 206, 1);
}

TEST(SpecSheetTest, NvidiaA100SheetHoldsTheDatasheetFigures) {
  auto sheets = LoadSpecSheets(ShippedSpecSheetDir());
  ASSERT_TRUE(sheets.ok());
  const SpecSheet* a100 = FindSpecSheet(*sheets, "NVIDIA A100 SXM 80GB");
  ASSERT_NE(a100, nullptr);
  const std::map<std::string, double> expected = {
      {"fp64", 9.7e12}, {"fp64_tensor", 19.5e12}, {"fp32", 19.5e12}, {"tf32", 156e12},
      {"bf16", 312e12}, {"fp16", 312e12},         {"int8", 624e12}};
  EXPECT_EQ(a100->peak_flops_per_second, expected);  // no fp8 on Ampere
  EXPECT_DOUBLE_EQ(a100->memory_bytes, 80 * kGiB);
  EXPECT_DOUBLE_EQ(a100->memory_bandwidth_bytes_per_second, 2039e9);
  EXPECT_DOUBLE_EQ(a100->host_link->rx_bytes_per_second, 32e9);  // PCIe Gen4 x16, 64 GB/s total
  EXPECT_EQ(a100->host_link->name, "PCIe Gen4 x16");
  EXPECT_DOUBLE_EQ(a100->network_link->tx_bytes_per_second, 300e9);  // NVLink 3, 600 GB/s total
}

TEST(SpecSheetTest, A100FortyL4AndMi300xSheetsHoldTheDatasheetFigures) {
  auto sheets = LoadSpecSheets(ShippedSpecSheetDir());
  ASSERT_TRUE(sheets.ok());
  // The A100 40 GB board by the name PyTorch traces give it.
  const SpecSheet* a100 = FindSpecSheet(*sheets, "NVIDIA A100-PG509-200");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->device, "NVIDIA A100 SXM 40GB");
  EXPECT_DOUBLE_EQ(a100->memory_bytes, 40 * kGiB);
  EXPECT_DOUBLE_EQ(a100->memory_bandwidth_bytes_per_second, 1555e9);
  EXPECT_DOUBLE_EQ(a100->peak_flops_per_second.at("bf16"), 312e12);
  // L4: dense halves of the sparse figures; no fp64 figure on its datasheet.
  const SpecSheet* l4 = FindSpecSheet(*sheets, "NVIDIA L4");
  ASSERT_NE(l4, nullptr);
  const std::map<std::string, double> l4_peaks = {{"fp32", 30.3e12}, {"tf32", 60e12},
                                                  {"bf16", 121e12},  {"fp16", 121e12},
                                                  {"fp8", 242.5e12}, {"int8", 242.5e12}};
  EXPECT_EQ(l4->peak_flops_per_second, l4_peaks);
  EXPECT_DOUBLE_EQ(l4->memory_bandwidth_bytes_per_second, 300e9);
  EXPECT_FALSE(l4->network_link.has_value());
  const SpecSheet* mi300x = FindSpecSheet(*sheets, "AMD Instinct MI300X");
  ASSERT_NE(mi300x, nullptr);
  EXPECT_DOUBLE_EQ(mi300x->peak_flops_per_second.at("fp64"), 81.7e12);
  EXPECT_DOUBLE_EQ(mi300x->peak_flops_per_second.at("bf16"), 1307.4e12);
  EXPECT_DOUBLE_EQ(mi300x->peak_flops_per_second.at("fp8"), 2614.9e12);
  EXPECT_DOUBLE_EQ(mi300x->memory_bytes, 192 * kGiB);
  EXPECT_DOUBLE_EQ(mi300x->memory_bandwidth_bytes_per_second, 5.3e12);
}

TEST(SpecSheetTest, FindsSheetsByTheModelNameDriversReport) {
  auto sheets = LoadSpecSheets(ShippedSpecSheetDir());
  ASSERT_TRUE(sheets.ok());
  const SpecSheet* h100 = FindSpecSheet(*sheets, "NVIDIA H100 80GB HBM3");
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->device, "NVIDIA H100 SXM");
  const SpecSheet* a100 = FindSpecSheet(*sheets, "nvidia a100-sxm4-80gb");
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->device, "NVIDIA A100 SXM 80GB");
  EXPECT_EQ(FindSpecSheet(*sheets, "NVIDIA H200")->device, "NVIDIA H200");
  EXPECT_EQ(FindSpecSheet(*sheets, "NVIDIA H100 PCIe")->device, "NVIDIA H100 PCIe");
  EXPECT_EQ(FindSpecSheet(*sheets, "NVIDIA GH200 480GB"), nullptr);  // no sheet: none guessed
}

// L40S, H100 PCIe and B200: the datasheets' dense figures (half of the sparse ones).
TEST(SpecSheetTest, L40sH100PcieAndB200SheetsHoldTheDatasheetFigures) {
  auto sheets = LoadSpecSheets(ShippedSpecSheetDir());
  ASSERT_TRUE(sheets.ok());
  const SpecSheet* l40s = FindSpecSheet(*sheets, "NVIDIA L40S");
  ASSERT_NE(l40s, nullptr);
  const std::map<std::string, double> l40s_peaks = {{"fp32", 91.6e12},   {"tf32", 183e12},
                                                    {"bf16", 362.05e12}, {"fp16", 362.05e12},
                                                    {"fp8", 733e12},     {"int8", 733e12}};
  EXPECT_EQ(l40s->peak_flops_per_second, l40s_peaks);
  EXPECT_DOUBLE_EQ(l40s->memory_bandwidth_bytes_per_second, 864e9);
  EXPECT_DOUBLE_EQ(l40s->memory_bytes, 48 * kGiB);
  const SpecSheet* h100 = FindSpecSheet(*sheets, "NVIDIA H100 PCIe");
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->peak_flops_per_second.at("fp64"), 26e12);
  EXPECT_DOUBLE_EQ(h100->peak_flops_per_second.at("bf16"), 756.5e12);
  EXPECT_DOUBLE_EQ(h100->memory_bandwidth_bytes_per_second, 2e12);
  EXPECT_DOUBLE_EQ(h100->network_link->tx_bytes_per_second, 300e9);
  const SpecSheet* b200 = FindSpecSheet(*sheets, "NVIDIA B200");
  ASSERT_NE(b200, nullptr);
  EXPECT_DOUBLE_EQ(b200->peak_flops_per_second.at("bf16"), 2.25e15);
  EXPECT_DOUBLE_EQ(b200->peak_flops_per_second.at("fp8"), 4.5e15);
  EXPECT_DOUBLE_EQ(b200->peak_flops_per_second.at("fp64"), 37e12);
  EXPECT_DOUBLE_EQ(b200->memory_bandwidth_bytes_per_second, 7.7e12);
  EXPECT_DOUBLE_EQ(b200->network_link->rx_bytes_per_second, 900e9);
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

// ICI per chip, per direction: the Cloud TPU pages give the bidirectional figure per chip, the
// sheets hold half of it, the figure bench check compares each collective's busbw with (as the
// NVLink figures above). TPU v4's page gives ICI per Pod only, so its sheet has none.
TEST(SpecSheetTest, TpuSheetsHoldTheIciFigurePerDirection) {
  auto sheets = LoadSpecSheets(ShippedSpecSheetDir());
  ASSERT_TRUE(sheets.ok());
  struct Expected {
    const char* model;
    double per_direction;       // bytes/s
    const char* page;           // the Cloud TPU page the figure is cited from; "" = not from one
    const char* bidirectional;  // the page's figure as the source quotes it
  };
  for (const Expected& e : {Expected{"TPU v5e", 200e9, "https://docs.cloud.google.com/tpu/docs/v5e",
                                     "(per chip) 400 GBps"},
                            Expected{"TPU v5p", 600e9, "https://docs.cloud.google.com/tpu/docs/v5p",
                                     "per chip (GBps) 1200"},
                            Expected{"TPU v6e", 400e9, "https://docs.cloud.google.com/tpu/docs/v6e",
                                     "(per chip) 800 GBps"},
                            Expected{"TPU 7x", 600e9, "", ""}}) {
    const SpecSheet* s = FindSpecSheet(*sheets, e.model);
    ASSERT_NE(s, nullptr) << e.model;
    ASSERT_TRUE(s->network_link.has_value()) << e.model;
    EXPECT_DOUBLE_EQ(s->network_link->tx_bytes_per_second, e.per_direction) << e.model;
    EXPECT_DOUBLE_EQ(s->network_link->rx_bytes_per_second, e.per_direction) << e.model;
    if (*e.page == '\0') continue;
    EXPECT_EQ(s->network_link->name, "ICI") << e.model;
    const std::string& source = s->network_link->source;
    EXPECT_NE(source.find(e.page), std::string::npos) << source;
    EXPECT_NE(source.find("Bidirectional inter-chip interconnect (ICI) bandwidth"),
              std::string::npos)
        << source;
    EXPECT_NE(source.find(e.bidirectional), std::string::npos) << source;
  }
  const SpecSheet* v4 = FindSpecSheet(*sheets, "TPU v4");
  ASSERT_NE(v4, nullptr);
  EXPECT_FALSE(v4->network_link.has_value());
  EXPECT_FALSE(v4->host_link.has_value());
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

TEST(SpecSheetTest, OptionalSourcesDefaultToTheSheetSource) {
  auto sheet = ParseSpecSheet(
      std::string(kMinimal) + "network_link: {tx_bytes_per_second: 1, rx_bytes_per_second: 2}\n",
      "ok.yaml");
  ASSERT_TRUE(sheet.ok()) << sheet.error().ToString();
  EXPECT_EQ(sheet->peak_sources.at("bf16"), "datasheet rev 1");
  EXPECT_EQ(sheet->memory_source, "datasheet rev 1");
  EXPECT_EQ(sheet->network_link->source, "datasheet rev 1");
  EXPECT_EQ(sheet->network_link->name, "");
  EXPECT_TRUE(sheet->aliases.empty());
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
  ExpectParseError(std::string(kMinimal) + "aliases: NVIDIA X\n",
                   "bad.yaml:9: 'aliases' is not a list of model names");
  ExpectParseError(std::string(kMinimal) + "aliases:\n  - [nested]\n",
                   "bad.yaml:10: an entry of 'aliases' is not a model name");
  ExpectParseError(std::string(kMinimal) + "peak_flops_source: {a: b}\n",
                   "bad.yaml:9: 'peak_flops_source' is not text");
  ExpectParseError(std::string(kMinimal) +
                       "host_link:\n  tx_bytes_per_second: 1\n  rx_bytes_per_second: 1\n"
                       "  name: [PCIe]\n",
                   "bad.yaml:12: 'host_link.name' is not text");
}

TEST(SpecSheetTest, MissingFileIsNotFound) {
  auto sheet = LoadSpecSheet("/no/such/sheet.yaml");
  ASSERT_FALSE(sheet.ok());
  EXPECT_EQ(sheet.error().code, ErrorCode::kNotFound);
  EXPECT_FALSE(LoadSpecSheets("/no/such/dir").ok());
}

}  // namespace
}  // namespace xpuperf::spec
