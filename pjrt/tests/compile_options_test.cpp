#include "compile_options.h"

#include <gtest/gtest.h>

namespace xpuperf::pjrt {
namespace {

std::string Hex(const std::string& bytes) {
  std::string out;
  for (unsigned char c : bytes)
    out += "0123456789abcdef"[c >> 4], out += "0123456789abcdef"[c & 15];
  return out;
}

// Hand-decoded against xla/pjrt/proto/compile_options.proto and xla_data.proto:
//   1a 11                     executable_build_options (3), 17 bytes
//     08 00                   device_ordinal (1) = 0
//     20 01                   num_replicas (4) = 1
//     28 01                   num_partitions (5) = 1
//     4a 09                   device_assignment (9), 9 bytes
//       08 01 10 01           replica_count (1) = 1, computation_count (2) = 1
//       1a 03 0a 01 00        computation_devices (3) { replica_device_ids (1) packed [0] }
TEST(CompileOptions, OneReplicaOnDeviceZero) {
  EXPECT_EQ(Hex(EncodeCompileOptions({0})),
            "1a11080020012801"
            "4a0908011001"
            "1a030a0100");
}

TEST(CompileOptions, FourReplicasLeaveTheOrdinalUnset) {
  const std::string encoded = EncodeCompileOptions({0, 1, 2, 3});
  // device_ordinal = -1 is ten bytes: 08 ff ff ff ff ff ff ff ff ff 01.
  EXPECT_NE(Hex(encoded).find("08ffffffffffffffffff01"), std::string::npos) << Hex(encoded);
  EXPECT_NE(Hex(encoded).find("2004"), std::string::npos);          // num_replicas 4
  EXPECT_NE(Hex(encoded).find("0a0400010203"), std::string::npos);  // ids 0..3
}

}  // namespace
}  // namespace xpuperf::pjrt
