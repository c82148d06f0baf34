#include "compile_options.h"

namespace xpuperf::pjrt {
namespace {

// Protobuf wire types.
constexpr int kVarint = 0;
constexpr int kLengthDelimited = 2;

void PutVarint(std::string& out, uint64_t value) {
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

void PutTag(std::string& out, int field, int wire_type) {
  PutVarint(out, (static_cast<uint64_t>(field) << 3) | wire_type);
}

// int32/int64 fields: negative values are ten-byte two's complement varints.
void PutInt(std::string& out, int field, int64_t value) {
  PutTag(out, field, kVarint);
  PutVarint(out, static_cast<uint64_t>(value));
}

void PutMessage(std::string& out, int field, const std::string& message) {
  PutTag(out, field, kLengthDelimited);
  PutVarint(out, message.size());
  out += message;
}

}  // namespace

std::string EncodeCompileOptions(const std::vector<int64_t>& device_ids) {
  const auto replicas = static_cast<int64_t>(device_ids.size());
  // DeviceAssignmentProto.ComputationDevice: replica_device_ids = 1 (packed int64).
  std::string packed;
  for (int64_t id : device_ids) PutVarint(packed, static_cast<uint64_t>(id));
  std::string computation;
  PutMessage(computation, 1, packed);
  // DeviceAssignmentProto: replica_count = 1, computation_count = 2, computation_devices = 3.
  std::string assignment;
  PutInt(assignment, 1, replicas);
  PutInt(assignment, 2, 1);
  PutMessage(assignment, 3, computation);
  // ExecutableBuildOptionsProto: device_ordinal = 1 (-1 = unset: the assignment decides with more
  // than one replica), num_replicas = 4, num_partitions = 5 (proto3 defaults are 0, which XLA
  // copies as-is, so both are always written), device_assignment = 9.
  std::string build;
  PutInt(build, 1, replicas == 1 ? device_ids.front() : -1);
  PutInt(build, 4, replicas);
  PutInt(build, 5, 1);
  PutMessage(build, 9, assignment);
  // CompileOptionsProto: executable_build_options = 3.
  std::string options;
  PutMessage(options, 3, build);
  return options;
}

PJRT_Program MlirProgram(std::string& code) {
  static constexpr char kFormat[] = "mlir";
  PJRT_Program program{};
  program.struct_size = PJRT_Program_STRUCT_SIZE;
  program.code = code.data();
  program.code_size = code.size();
  program.format = kFormat;
  program.format_size = sizeof(kFormat) - 1;
  return program;
}

}  // namespace xpuperf::pjrt
