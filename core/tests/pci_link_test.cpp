#include "xpuperf/core/pci_link.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace xpuperf {
namespace {

TEST(PciLinkTest, GenerationsByTransferRate) {
  EXPECT_EQ(PcieGeneration("2.5 GT/s PCIe"), 1);
  EXPECT_EQ(PcieGeneration("8.0 GT/s PCIe"), 3);
  EXPECT_EQ(PcieGeneration("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(PcieGeneration("64.0 GT/s PCIe"), 6);
  EXPECT_EQ(PcieGeneration("Unknown"), 0);
  EXPECT_EQ(PcieGeneration("12 GT/s"), 0);
}

TEST(PciLinkTest, ReadsTheFourAttributesAndSaysWhichIsMissing) {
  const std::string dir =
      ::testing::TempDir() + "/pci-link-" + std::to_string(::getpid()) + "/0000:3b:00.0";
  std::filesystem::create_directories(dir);
  auto write = [&dir](const char* name, const char* text) {
    std::ofstream(dir + "/" + name) << text;
  };
  write("current_link_speed", "2.5 GT/s PCIe\n");
  write("current_link_width", "8\n");
  write("max_link_speed", "16.0 GT/s PCIe\n");
  auto missing = ReadPciLink(dir);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("max_link_width"), std::string::npos);
  write("max_link_width", "16\n");
  auto link = ReadPciLink(dir);
  ASSERT_TRUE(link.ok()) << link.error().message;
  EXPECT_EQ(link->generation, 1);
  EXPECT_EQ(link->max_generation, 4);
  EXPECT_EQ(link->width, 8);
  EXPECT_EQ(link->max_width, 16);
  EXPECT_EQ(link->speed, "2.5 GT/s PCIe");
  std::filesystem::remove_all(std::filesystem::path(dir).parent_path());
}

}  // namespace
}  // namespace xpuperf
