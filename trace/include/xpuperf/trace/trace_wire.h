// A Trace as bytes and back, losslessly: how `analyze DIR` under MPI sends the ranks one process
// read to the process that analyses the run (cli/src/command_analyze_mpi.cpp). The encoding is
// native-endian and versioned; it is meant for processes of one build on one kind of machine,
// not for files. Decoding checks every length and every id against what the bytes hold, so a
// corrupt message is an error, never a crash.
#pragma once

#include <string>
#include <string_view>

#include "xpuperf/core/status.h"
#include "xpuperf/trace/trace.h"

namespace xpuperf::trace {

// Every field of `trace`; DecodeTrace(EncodeTrace(t)) analyses exactly as t does.
std::string EncodeTrace(const Trace& trace);
// kInvalidArgument "trace message: ..." when `bytes` is not what EncodeTrace writes.
Result<Trace> DecodeTrace(std::string_view bytes);

}  // namespace xpuperf::trace
