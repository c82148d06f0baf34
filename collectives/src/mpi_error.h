// Internal: an MPI call's error code as an Error, and XPUPERF_MPI(call), which returns it from the
// enclosing function (one that returns a Status or Result) when the call fails.
#pragma once

#include <fmt/format.h>
#include <mpi.h>

#include "xpuperf/core/status.h"

namespace xpuperf::collectives {

inline Error MpiError(const char* call, int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  return MakeError(ErrorCode::kInternal, fmt::format("{} failed: {}", call, text));
}

}  // namespace xpuperf::collectives

#define XPUPERF_MPI(call)                                       \
  do {                                                          \
    if (const int mpi_code = (call); mpi_code != MPI_SUCCESS)   \
      return ::xpuperf::collectives::MpiError(#call, mpi_code); \
  } while (0)
