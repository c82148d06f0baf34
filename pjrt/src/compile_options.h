// Internal: a serialized xla.CompileOptionsProto written by hand (a few varint and
// length-delimited fields; no protobuf library): executable_build_options with device_ordinal,
// num_replicas, num_partitions = 1 and a replicas x 1 device assignment. Field numbers from
// xla/pjrt/proto/compile_options.proto and xla_data.proto.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pjrt_c_api.h"

namespace xpuperf::pjrt {

// `device_ids` holds one global device id per replica (at least one).
std::string EncodeCompileOptions(const std::vector<int64_t>& device_ids);

// A PJRT_Program of StableHLO, MLIR text or bytecode (format "mlir"), over `code`, which must
// outlive it.
PJRT_Program MlirProgram(std::string& code);

}  // namespace xpuperf::pjrt
