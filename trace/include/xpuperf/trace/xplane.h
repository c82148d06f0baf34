// Reading XLA's `.xplane.pb` (a serialized tensorflow.profiler.XSpace: what jax.profiler.trace,
// TensorFlow's profiler and XLA's ProfilerService write) into the trace model. A hand-written,
// bounded protobuf decoder (core/protobuf_wire.h), no libprotobuf.
//
// What becomes what (docs/TRACES.md, "XLA profiles"):
//   - a device plane (`/device:GPU:N`, `/device:TPU:N`) is process "device N": its `XLA Ops` line
//     gives device ops (EventKind::kKernel, category "XLA Ops", stream = the line's id), its
//     `XLA Modules` and `Steps` lines give ranges (kGpuUserAnnotation, categories "XLA Modules"
//     and "Steps"); when a plane has no `XLA Ops` line (a GPU trace straight from CUPTI), the
//     events of its other lines (streams) are the device ops, else those lines are kept as kOther;
//   - the host plane `/host:CPU` (one line per thread) gives host events (kCpuOp); a host event
//     that names an HLO op (stat hlo_op, as XLA:CPU's thunks do) is an XLA op run on the host:
//     category "XLA Ops", device -1;
//   - other planes (`/host:metadata`, `Task Environment`, `#Chip…`, SparseCore) are left out.
// Times: event start = line.timestamp_ns + offset_ps / 1000 (floored), end likewise from
// offset_ps + duration_ps, so adjacent events stay adjacent; picoseconds below 1 ns are dropped.
// The stats hlo_category, hlo_module, flops and bytes_accessed (of an event or of its metadata)
// fill Trace::xla_ops by op name.
//
// Thread-safety: pure functions (one call per input).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "xpuperf/core/status.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

// True for names ending in ".xplane.pb" (what every XLA profiler writes).
bool IsXPlaneFileName(std::string_view path);

// Parses a serialized XSpace held in memory. `source` names it in errors, which carry the byte
// offset: "a.xplane.pb: malformed XSpace at byte 1234: ...".
Result<Trace> ParseXSpace(std::string_view bytes, std::string source);

// Reads a file through core/input_file.h (regular files only, refused beyond
// MaxDecompressedBytes()).
Result<Trace> ReadXSpaceFile(const std::string& path);

}  // namespace xpuperf::trace
