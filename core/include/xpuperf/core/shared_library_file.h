// Checks a shared library's file before dlopen. dlopen of a truncated ELF faults (SIGBUS) when the
// loader touches a segment past the end of the file, and dlopen of a library that is not the one
// expected runs its constructors: a second libxpuperf, or any library that registers protobuf
// types, aborts the process. Reading the headers first turns both into an error value.
// DynamicLibrary::Open applies it to every candidate that is a path to an existing file (a
// library chosen by the user: XPUPERF_NVML_LIBRARY, XPUPERF_AMDSMI_LIBRARY, ...).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "xpuperf/core/status.h"

namespace xpuperf {

// Ok when `path` is a regular file holding a complete 64-bit little-endian ELF shared object for
// this machine (every loaded segment inside the file) whose dynamic symbol table defines at least
// one of `any_of_symbols` (not checked when empty). Otherwise kInvalidArgument with the reason
// alone: "not an ELF file", "truncated: segment 2 ends at byte 2097152 of a 4096-byte file",
// "it defines none of nvmlInit_v2, nvmlInit", or the input policy's message ("is a FIFO...").
// Reads the headers and the dynamic symbol table only (pread), never the whole file. Thread-safe.
Status CheckSharedLibraryFile(const std::string& path,
                              const std::vector<std::string>& any_of_symbols);

}  // namespace xpuperf
